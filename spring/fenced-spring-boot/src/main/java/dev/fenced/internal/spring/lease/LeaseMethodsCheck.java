package dev.fenced.internal.spring.lease;

import dev.fenced.FencedProperty;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.spring.WithLease;
import dev.fenced.spring.config.FencedConfigurationException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.asm.Type;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Fails start-up for a lease method AOP cannot run under its lease: a configured one whose class is not on the
 * class path, declares no method of that name, or is no Spring bean (only bean methods are proxied; the agent covers
 * the rest); and any lease method, configured or {@link WithLease}, that a proxy cannot intercept because it is
 * {@code final}, {@code private} or {@code static}: its calls would run the body with no lease and no word logged. A
 * job must never run silently unfenced because of a typo or a modifier.
 *
 * <p>Nor because of a call from the same bean: {@code this.job()} (or {@code job()}, {@code super.job()},
 * {@code this::job}) inside the bean's class goes past the proxy. The bean's class files are read ({@link SelfCalls})
 * and such a call of a lease method fails start-up too, unless the caller is itself a lease method of the same lease
 * (the call then runs inside that lease). The configured methods are checked only when the proxy runs them: when the
 * java agent does ({@link LeaseMethods#configured()} is then empty), it instruments the body, whoever calls it.
 * {@code @WithLease} methods are the proxy's alone (the agent does not read the annotation), agent or not.
 */
public final class LeaseMethodsCheck implements SmartInitializingSingleton {

    private final LeaseMethods methods;
    private final ListableBeanFactory beans;

    public LeaseMethodsCheck(LeaseMethods methods, ListableBeanFactory beans) {
        this.methods = methods;
        this.beans = beans;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (LeaseMethod m : methods.configured()) {
            checkConfigured(m);
        }
        for (String bean : beans.getBeanDefinitionNames()) {
            Class<?> type = beans.getType(bean, false);
            if (type == null) {
                continue;
            }
            try {
                Class<?> user = ClassUtils.getUserClass(type);
                checkAnnotated(user);
                checkSelfCalls(user);
            } catch (LinkageError e) {
                // a class whose methods name types that are not on the class path: it has no lease methods Spring
                // could have proxied either (AOP reads the same methods), so there is nothing to check
            }
        }
    }

    private void checkConfigured(LeaseMethod m) {
        String key = FencedProperty.LEASE_METHOD.keyFor(m.name());
        Class<?> type;
        try {
            type = ClassUtils.forName(m.className(), beans.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new FencedConfigurationException(
                    "fenced: " + key + " names class " + m.className() + ", which is not on the class path");
        }
        List<Method> named = Arrays.stream(type.getDeclaredMethods())
                .filter(d -> d.getName().equals(m.methodName()) && !d.isSynthetic())
                .toList();
        if (named.isEmpty()) {
            throw new FencedConfigurationException("fenced: " + key + " names " + m.className() + "#" + m.methodName()
                    + ", but that class declares no method of that name");
        }
        for (Method method : named) {
            String why = notInterceptable(method);
            if (why != null) {
                throw cannotIntercept(key + " names " + describe(method), why, true);
            }
        }
        if (beans.getBeanNamesForType(type, true, false).length == 0) {
            throw new FencedConfigurationException("fenced: " + key + " names " + m.className() + "#"
                    + m.methodName() + ", but no Spring bean is of that class: without the java agent only bean"
                    + " methods run under a lease (make it a bean, or attach the agent)");
        }
    }

    /**
     * {@code @WithLease} on a method (any modifier: it says the method is a job), or on the class (its methods a
     * caller can reach: a private or static helper of such a class is no job, a final one would be skipped).
     */
    private static void checkAnnotated(Class<?> type) {
        boolean onClass = AnnotatedElementUtils.hasAnnotation(type, WithLease.class);
        ReflectionUtils.doWithMethods(
                type,
                method -> {
                    String why = notInterceptable(method);
                    if (why == null || method.isSynthetic() || method.isBridge()) {
                        return;
                    }
                    if (AnnotatedElementUtils.hasAnnotation(method, WithLease.class)) {
                        throw cannotIntercept("@WithLease is on " + describe(method), why, false);
                    }
                    if (onClass
                            && method.getDeclaringClass() == type
                            && Modifier.isFinal(method.getModifiers())
                            && !Modifier.isPrivate(method.getModifiers())
                            && !Modifier.isStatic(method.getModifiers())) {
                        throw cannotIntercept(
                                "@WithLease is on " + type.getName() + ", whose method " + describe(method),
                                why,
                                false);
                    }
                },
                method -> method.getDeclaringClass() != Object.class);
    }

    /** Fails start-up for calls of {@code type}'s lease methods on {@code this}, which the proxy never sees. */
    private void checkSelfCalls(Class<?> type) {
        if (!hasLeaseMethod(type)) {
            return; // nothing to read: most beans
        }
        List<String> found = new ArrayList<>();
        boolean allConfigured = true;
        for (SelfCalls.Call call : SelfCalls.in(type)) {
            Method target = SelfCalls.target(call, type);
            LeaseSpec lease = target == null ? null : leaseOf(target, type);
            if (target == null || lease == null || runsInside(call, lease, type)) {
                continue;
            }
            allConfigured &= !lease.declaredBy().startsWith("@WithLease");
            found.add(
                    caller(call) + " calls " + describe(target) + (call.line() > 0 ? " (line " + call.line() + ")" : "")
                            + ", a method of lease " + lease.name() + " (" + lease.declaredBy() + ")");
        }
        if (!found.isEmpty()) {
            throw new FencedConfigurationException("fenced: " + String.join("; ", found) + ": a call from the same bean"
                    + " (this.method(), or method() inside the class) goes past the Spring AOP proxy that runs a lease"
                    + " method under its lease, so without the java agent the call would run the body with no lease."
                    + " Call it through the bean: inject the bean into itself (@Autowired @Lazy, then self.method())"
                    + " or call it from another bean, " + orTheAgent(allConfigured));
        }
    }

    private boolean hasLeaseMethod(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (leaseOf(m, type) != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The lease a call of {@code method} on a proxied bean of class {@code type} runs under, or null. */
    private @Nullable LeaseSpec leaseOf(Method method, Class<?> type) {
        if (notInterceptable(method) != null || method.isSynthetic() || method.isBridge()) {
            return null;
        }
        return methods.find(AopUtils.getMostSpecificMethod(method, type));
    }

    /**
     * True when the caller is itself a lease method of the same lease, called through the proxy: the call then runs
     * inside that lease (re-entry just runs). A lambda, or a local or anonymous class, counts as the method it is
     * written in.
     */
    private boolean runsInside(SelfCalls.Call call, LeaseSpec lease, Class<?> type) {
        if (call.declaredBy().getEnclosingMethod() != null) {
            // a local or anonymous class counts as the method it is written in, as a lambda does
            LeaseSpec enclosing = leaseOf(call.declaredBy().getEnclosingMethod(), type);
            return enclosing != null && enclosing.name().equals(lease.name());
        }
        String lambda = lambdaOf(call.callerName());
        List<@Nullable LeaseSpec> callers = new ArrayList<>();
        for (Method m : call.declaredBy().getDeclaredMethods()) {
            if (lambda != null
                    ? m.getName().equals(lambda)
                    : m.getName().equals(call.callerName())
                            && Type.getMethodDescriptor(m).equals(call.callerDescriptor())) {
                callers.add(leaseOf(m, type));
            }
        }
        return !callers.isEmpty()
                && callers.stream().allMatch(c -> c != null && c.name().equals(lease.name()));
    }

    /** The method a {@code lambda$name$n} body is written in, or null for any other method. */
    private static @Nullable String lambdaOf(String method) {
        if (!method.startsWith("lambda$")) {
            return null;
        }
        int end = method.indexOf('$', "lambda$".length());
        return end < 0 ? null : method.substring("lambda$".length(), end);
    }

    private static String caller(SelfCalls.Call call) {
        String type = call.declaredBy().getName();
        if (call.callerName().equals("<init>")) {
            return "the constructor of " + type;
        }
        String lambda = lambdaOf(call.callerName());
        return lambda != null ? "a lambda in " + type + "#" + lambda : type + "#" + call.callerName();
    }

    /** Why a Spring AOP proxy (JDK or CGLIB) cannot intercept calls of {@code method}, or null if it can. */
    static @Nullable String notInterceptable(Method method) {
        int mod = method.getModifiers();
        if (Modifier.isStatic(mod)) {
            return "static";
        }
        if (Modifier.isPrivate(mod)) {
            return "private";
        }
        if (Modifier.isFinal(mod)) {
            return "final";
        }
        return null;
    }

    private static String describe(Method method) {
        return method.getDeclaringClass().getName() + "#" + method.getName();
    }

    private static FencedConfigurationException cannotIntercept(String what, String modifier, boolean configured) {
        return new FencedConfigurationException("fenced: " + what + ", which is " + modifier + ": without the java"
                + " agent lease methods run through a Spring AOP proxy, which cannot intercept a final, private or"
                + " static method, so every call would run its body with no lease. Make the method public and not"
                + " final, and call it through the bean (another bean's call, not this.method() from the same bean), "
                + orTheAgent(configured));
    }

    private static String orTheAgent(boolean configured) {
        return configured
                ? "or attach the fenced java agent (-javaagent:fenced-agent.jar), which runs"
                        + " fenced.lease.<name>.method without a proxy"
                : "or name it in fenced.lease.<name>.method instead and attach the fenced java agent"
                        + " (-javaagent:fenced-agent.jar), which runs it without a proxy";
    }
}
