package dev.fenced.internal.spring.lease;

import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseBoundCalls;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Runs a lease-bound bean method under its lease, with the agent's semantics: skip (returns null, 0 or false),
 * wait (up to one ttl) or fail when busy; a call inside the same lease on the same thread, or in a task that
 * carries its live token, just runs. The lease's token is bound for the body and released after it, whatever
 * it throws.
 */
public final class LeaseInterceptor implements MethodInterceptor {

    private final LeaseMethods methods;
    private final ObjectProvider<LeaseManager> leases;
    /** Re-entry, the busy policy and the leases held: the driver's, shared with the agent. */
    private final LeaseBoundCalls calls = new LeaseBoundCalls(System.getLogger("dev.fenced.spring"));

    public LeaseInterceptor(LeaseMethods methods, ObjectProvider<LeaseManager> leases) {
        this.methods = methods;
        this.leases = leases;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> target = invocation.getThis() == null
                ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target);
        LeaseSpec spec = methods.find(method);
        if (spec == null) {
            return invocation.proceed();
        }
        String what = method.getDeclaringClass().getName() + "#" + method.getName();
        AutoCloseable entered = calls.enter(spec.name(), spec.ttl(), spec.onBusy(), what, leases::getObject);
        if (entered == null) {
            return skipped(method.getReturnType());
        }
        try (entered) {
            return invocation.proceed();
        }
    }

    /** What a skipped call returns: the type's zero. */
    static @Nullable Object skipped(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0d;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == short.class) {
            return (short) 0;
        }
        return 0;
    }
}
