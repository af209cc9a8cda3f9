package dev.fenced.internal.agent;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.fenced.internal.agent.advice.LeaseAdvice;
import dev.fenced.internal.agent.advice.PropagationAdvice;
import dev.fenced.internal.agent.bootstrap.Propagation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TimerTask;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.TypeResolutionStrategy;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import org.jspecify.annotations.Nullable;

/**
 * The Byte Buddy half of the agent: given the class file of one type {@link ClassFilter} selected by name, returns
 * it with the advice for that type inlined (Advice only: no member, no class format change). The only class of the
 * agent that links to Byte Buddy: it is loaded when the application first loads a type the agent instruments, so
 * a JVM that never does (a tiny main on Java 17) loads no Byte Buddy class at all.
 *
 * <p>What {@code AgentBuilder.disableClassFormatChanges()} with the decorating type strategy did, without the
 * AgentBuilder (whose installation generated a class and loaded ~800 classes at start): a type pool over the class
 * file being loaded and its loader, and {@code ByteBuddy.decorate}, which applies visitors and nothing else.
 */
final class Weaver {

    private final ByteBuddy byteBuddy = new ByteBuddy()
            .with(TypeValidation.DISABLED)
            .with(Implementation.Context.Disabled.Factory.INSTANCE)
            .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE);

    /** Per type name: the visitors that instrument it, built on first use. */
    private final Map<String, Lazy<List<AsmVisitorWrapper>>> rules = new HashMap<>();

    /** Per lease-bound class: the methods its bindings name, to check that the class loaded has one. */
    private final Map<String, List<StartupConfig.Binding>> leaseBindings = new HashMap<>();

    Weaver(List<StartupConfig.Binding> bindings) {
        propagation();
        for (StartupConfig.Binding b : bindings) {
            leaseBindings.computeIfAbsent(b.className(), k -> new ArrayList<>()).add(b);
        }
        leaseBindings.forEach((type, list) -> rules.put(type, new Lazy<>(() -> leaseVisitors(list))));
    }

    /**
     * The class file {@code bytes} of {@code typeName} with its advice inlined.
     *
     * @throws IllegalStateException when a lease-bound class has no method with a body by the configured name
     */
    byte @Nullable [] weave(@Nullable ClassLoader loader, String typeName, byte[] bytes) {
        Lazy<List<AsmVisitorWrapper>> visitors = rules.get(typeName);
        if (visitors == null) {
            return null;
        }
        ClassFileLocator locator = new ClassFileLocator.Compound(
                ClassFileLocator.Simple.of(typeName, bytes), ClassFileLocator.ForClassLoader.of(loader));
        TypePool pool = new TypePool.Default.WithLazyResolution(
                TypePool.CacheProvider.Simple.withObjectType(), locator, TypePool.Default.ReaderMode.FAST);
        TypeDescription type = pool.describe(typeName).resolve();
        List<StartupConfig.Binding> bindings = leaseBindings.get(typeName);
        if (bindings != null) {
            for (StartupConfig.Binding b : bindings) {
                if (type.getDeclaredMethods().filter(leaseMethods(b)).isEmpty()) {
                    throw new IllegalStateException(typeName + " loaded by " + loader + " has no method '"
                            + b.methodName() + "' with a body; it cannot run under lease '" + b.lease() + "'");
                }
            }
        }
        DynamicType.Builder<?> builder = byteBuddy.decorate(type, locator);
        for (AsmVisitorWrapper v : visitors.get()) {
            builder = builder.visit(v);
        }
        return builder.make(TypeResolutionStrategy.Disabled.INSTANCE, pool).getBytes();
    }

    private void propagation() {
        rule("java.util.concurrent.FutureTask", advice(isConstructor(), PropagationAdvice.FutureTaskConstructor.class));
        rule(
                "java.util.concurrent.ThreadPoolExecutor",
                advice(named("execute").and(takesArguments(Runnable.class)), PropagationAdvice.ExecuteRunnable.class));
        rule(
                "java.util.concurrent.ThreadPerTaskExecutor",
                advice(named("start").and(takesArguments(Runnable.class)), PropagationAdvice.ExecuteRunnable.class));
        rule(
                "java.util.concurrent.ForkJoinPool",
                advice(
                        isPublic().and(not(isStatic())).and(takesArgument(0, Runnable.class)),
                        PropagationAdvice.ForkJoinRunnable.class),
                advice(
                        isPublic().and(not(isStatic())).and(takesArgument(0, Callable.class)),
                        PropagationAdvice.ForkJoinCallable.class),
                advice(
                        isPublic()
                                .and(not(isStatic()))
                                .and(takesArgument(0, named("java.util.concurrent.ForkJoinTask"))),
                        PropagationAdvice.ForkJoinTaskArgument.class),
                advice(
                        isPublic().and(nameStartsWith("invoke")).and(takesArgument(0, Collection.class)),
                        PropagationAdvice.ForkJoinCallables.class));
        rule(
                "java.util.concurrent.ForkJoinTask",
                advice(isConstructor(), PropagationAdvice.ForkJoinTaskConstructor.class),
                advice(named("fork").and(takesArguments(0)), PropagationAdvice.Fork.class),
                advice(named("doExec").and(takesArguments(0)), PropagationAdvice.DoExec.class));
        rules.put("java.util.concurrent.CompletableFuture", new Lazy<>(Weaver::stageFunctions));
        rule(
                "java.util.Timer",
                advice(
                        named("sched").and(takesArguments(TimerTask.class, long.class, long.class)),
                        PropagationAdvice.TimerSchedule.class));
        rules.put("java.util.TimerThread", new Lazy<>(() -> List.of(timerRuns())));
        // Java 21+ only (ClassFilter never selects them before): the virtual-thread entry points
        rule(
                "java.lang.ThreadBuilders$VirtualThreadBuilder",
                advice(
                        named("unstarted").or(named("start")).and(takesArguments(Runnable.class)),
                        PropagationAdvice.VirtualThreadTask.class));
        // java.lang.Thread: see VirtualThreadStart
    }

    @SafeVarargs
    private void rule(String type, Supplier<AsmVisitorWrapper>... advice) {
        rules.put(type, new Lazy<>(() -> {
            List<AsmVisitorWrapper> all = new ArrayList<>();
            for (Supplier<AsmVisitorWrapper> a : advice) {
                all.add(a.get());
            }
            return all;
        }));
    }

    /** Advice read from the agent's class file, only when the type it is for is instrumented. */
    private static Supplier<AsmVisitorWrapper> advice(
            ElementMatcher<? super MethodDescription> on, Class<?> adviceClass) {
        return () ->
                Advice.to(ClassFiles.describe(adviceClass), ClassFiles.LOCATOR).on(on);
    }

    /**
     * The Timer's thread calls {@code task.run()} in one long loop, where no advice can wrap a single run: the
     * call itself is replaced by {@link Propagation#runTimerTask}, which binds what was captured at scheduling.
     */
    private static AsmVisitorWrapper timerRuns() {
        MethodDescription runTimerTask = ClassFiles.describe(Propagation.class)
                .getDeclaredMethods()
                .filter(named("runTimerTask").and(takesArguments(TimerTask.class)))
                .getOnly();
        return MemberSubstitution.relaxed()
                .method(named("run").and(takesArguments(0)).and(isDeclaredBy(TimerTask.class)))
                .replaceWith(runTimerTask)
                .on(named("mainLoop"));
    }

    /** The functional interfaces a CompletableFuture stage takes its function as. */
    private static final List<Class<?>> STAGE_FUNCTIONS =
            List.of(Runnable.class, Supplier.class, Function.class, Consumer.class, BiFunction.class, BiConsumer.class);

    /**
     * Every public CompletableFuture method taking a stage function first or second, async or not: the advice
     * is told which interface the parameter declares, so a function implementing several is wrapped as that one.
     */
    private static List<AsmVisitorWrapper> stageFunctions() {
        List<AsmVisitorWrapper> all = new ArrayList<>();
        for (Class<?> f : STAGE_FUNCTIONS) {
            Advice.WithCustomMapping kind =
                    Advice.withCustomMapping().bind(PropagationAdvice.Kind.class, f.getSimpleName());
            all.add(kind.to(ClassFiles.describe(PropagationAdvice.FunctionFirst.class), ClassFiles.LOCATOR)
                    .on(isPublic().and(takesArgument(0, f))));
            all.add(kind.to(ClassFiles.describe(PropagationAdvice.FunctionSecond.class), ClassFiles.LOCATOR)
                    .on(isPublic().and(takesArgument(1, f))));
        }
        return all;
    }

    private static ElementMatcher.Junction<MethodDescription> leaseMethods(StartupConfig.Binding b) {
        return isMethod().and(named(b.methodName())).and(not(isAbstract())).and(not(isNative()));
    }

    private static List<AsmVisitorWrapper> leaseVisitors(List<StartupConfig.Binding> bindings) {
        List<AsmVisitorWrapper> all = new ArrayList<>();
        for (StartupConfig.Binding b : bindings) {
            all.add(Advice.withCustomMapping()
                    .bind(LeaseAdvice.LeaseName.class, b.lease())
                    .to(ClassFiles.describe(LeaseAdvice.class), ClassFiles.LOCATOR)
                    .on(leaseMethods(b)));
        }
        return all;
    }

    /**
     * The agent's advice and helpers, described from their class files. Never by reflection: advice is built
     * while a JDK type loads, and reflection would load the JDK types in the advice's signatures (ForkJoinTask,
     * ...) right then, while the agent is busy on this thread, so they would never be instrumented.
     */
    private static final class ClassFiles {
        static final ClassFileLocator LOCATOR = new ClassFileLocator.Compound(
                ClassFileLocator.ForClassLoader.of(Weaver.class.getClassLoader()),
                new ClassFileLocator.ForJarFile(FencedAgent.bootstrapJar()));
        private static final TypePool POOL = TypePool.Default.of(LOCATOR);

        static TypeDescription describe(Class<?> type) {
            return POOL.describe(type.getName()).resolve();
        }
    }

    /** Built on first use: a JDK type the application never loads costs nothing. */
    private static final class Lazy<T> {
        private final Supplier<T> make;
        private volatile @Nullable T value;

        Lazy(Supplier<T> make) {
            this.make = make;
        }

        T get() {
            T v = value;
            if (v == null) {
                synchronized (this) {
                    v = value;
                    if (v == null) {
                        v = make.get();
                        value = v;
                    }
                }
            }
            return v;
        }
    }
}
