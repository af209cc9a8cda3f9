package dev.fenced.internal.agent;

import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
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
import dev.fenced.internal.agent.bootstrap.LeaseGate;
import dev.fenced.internal.agent.bootstrap.Propagation;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TimerTask;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaModule;

/** Builds and installs the instrumentation: Advice only, no class format changes, retransformation. */
final class Installer {

    private Installer() {}

    static void install(String configFile, Instrumentation inst) throws FencedAgent.AgentStartException {
        long t0 = System.nanoTime();
        StartupConfig config;
        try {
            config = StartupConfig.read(configFile);
        } catch (NoClassDefFoundError e) {
            // fenced-driver is not on the JVM's class path (e.g. nested jars): propagate, but bind no method.
            System.err.println("fenced agent: fenced-driver is not on the application class path at start ("
                    + e.getMessage() + "); context propagation is on, lease-bound methods are not available");
            config = null;
        }
        long tConfig = System.nanoTime();
        if (config != null && !config.enabled) {
            return;
        }
        if (configFile != null && System.getProperty("fenced.config") == null) {
            // one fenced.properties for agent and driver
            System.setProperty("fenced.config", configFile);
        }
        disableNexus();

        // Only the JDK types we instrument that are already loaded are retransformed (never every loaded class);
        // the others are instrumented when (if ever) the application first loads them.
        Set<String> leaseClasses = new HashSet<>();
        if (config != null) {
            config.bindings.forEach(b -> leaseClasses.add(b.className()));
        }
        AgentBuilder builder = new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new LoadedJdkTypes())
                .with(new RetransformationErrors())
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(
                        System.getenv("FENCED_AGENT_DEBUG") == null
                                ? new Errors(leaseClasses)
                                : new AgentBuilder.Listener.Compound(
                                        new Errors(leaseClasses),
                                        AgentBuilder.Listener.StreamWriting.toSystemError()
                                                .withTransformationsOnly()))
                // replaces ByteBuddy's default ignore list, which would exclude the bootstrap loader's JDK classes
                .ignore(ignored());

        ClassLoader agentLoader = Installer.class.getClassLoader();
        builder = propagation(builder, agentLoader);
        if (config != null && !config.bindings.isEmpty()) {
            LeaseGate.install(new GlueFactory(agentLoader, configFile));
            builder = leases(builder, agentLoader, config.bindings);
        }
        long t1 = System.nanoTime();
        builder.installOn(inst);
        if (System.getenv("FENCED_AGENT_DEBUG") != null) {
            System.err.println("fenced agent: configuration " + (tConfig - t0) / 1_000_000 + " ms, builder "
                    + (t1 - tConfig) / 1_000_000 + " ms, install "
                    + (System.nanoTime() - t1) / 1_000_000 + " ms");
        }
    }

    /** The JDK types we instrument. */
    static final Set<String> JDK_TYPES = Set.of(
            "java.util.concurrent.FutureTask",
            "java.util.concurrent.ThreadPoolExecutor",
            "java.util.concurrent.ThreadPerTaskExecutor",
            "java.util.concurrent.ForkJoinPool",
            "java.util.concurrent.ForkJoinTask",
            "java.util.concurrent.CompletableFuture",
            "java.lang.ThreadBuilders$VirtualThreadBuilder",
            "java.lang.Thread",
            "java.util.Timer",
            "java.util.TimerThread");

    /**
     * The JDK types to retransform: those of {@link #JDK_TYPES} already loaded. Byte Buddy asks for them after
     * its transformer is registered, so a type loaded later is instrumented as it loads. A type first loaded
     * while Byte Buddy itself works on this thread is skipped by its transformer (its circularity lock): each
     * batch after the first picks up what was loaded during the previous one, until none is new.
     */
    static final class LoadedJdkTypes implements AgentBuilder.RedefinitionStrategy.DiscoveryStrategy {
        @Override
        public Iterable<Iterable<Class<?>>> resolve(Instrumentation inst) {
            Set<Class<?>> seen = new HashSet<>();
            return () -> new Iterator<>() {
                private List<Class<?>> next = newlyLoaded();

                private List<Class<?>> newlyLoaded() {
                    List<Class<?>> batch = new ArrayList<>();
                    for (Class<?> c : inst.getInitiatedClasses(null)) {
                        if (c.getClassLoader() == null && JDK_TYPES.contains(c.getName()) && seen.add(c)) {
                            batch.add(c);
                        }
                    }
                    return batch;
                }

                @Override
                public boolean hasNext() {
                    if (next == null) {
                        next = newlyLoaded();
                    }
                    return !next.isEmpty();
                }

                @Override
                public Iterable<Class<?>> next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    List<Class<?>> batch = next;
                    next = null;
                    return batch;
                }
            };
        }
    }

    private static AgentBuilder propagation(AgentBuilder agentBuilder, ClassLoader agentLoader) {
        AgentBuilder builder = agentBuilder
                .type(named("java.util.concurrent.FutureTask"))
                .transform(advice(agentLoader, isConstructor(), PropagationAdvice.FutureTaskConstructor.class))
                .type(named("java.util.concurrent.ThreadPoolExecutor"))
                .transform(advice(
                        agentLoader,
                        named("execute").and(takesArguments(Runnable.class)),
                        PropagationAdvice.ExecuteRunnable.class))
                .type(named("java.util.concurrent.ThreadPerTaskExecutor"))
                .transform(advice(
                        agentLoader,
                        named("start").and(takesArguments(Runnable.class)),
                        PropagationAdvice.ExecuteRunnable.class))
                .type(named("java.util.concurrent.ForkJoinPool"))
                .transform(advice(
                        agentLoader,
                        isPublic().and(not(isStatic())).and(takesArgument(0, Runnable.class)),
                        PropagationAdvice.ForkJoinRunnable.class))
                .transform(advice(
                        agentLoader,
                        isPublic().and(not(isStatic())).and(takesArgument(0, Callable.class)),
                        PropagationAdvice.ForkJoinCallable.class))
                .transform(advice(
                        agentLoader,
                        isPublic()
                                .and(not(isStatic()))
                                .and(takesArgument(0, named("java.util.concurrent.ForkJoinTask"))),
                        PropagationAdvice.ForkJoinTaskArgument.class))
                .transform(advice(
                        agentLoader,
                        isPublic().and(nameStartsWith("invoke")).and(takesArgument(0, Collection.class)),
                        PropagationAdvice.ForkJoinCallables.class))
                .type(named("java.util.concurrent.ForkJoinTask"))
                .transform(advice(agentLoader, isConstructor(), PropagationAdvice.ForkJoinTaskConstructor.class))
                .transform(advice(agentLoader, named("fork").and(takesArguments(0)), PropagationAdvice.Fork.class))
                .transform(advice(agentLoader, named("doExec").and(takesArguments(0)), PropagationAdvice.DoExec.class))
                .type(named("java.util.concurrent.CompletableFuture"))
                .transform(stageFunctions(agentLoader))
                .type(named("java.util.Timer"))
                .transform(advice(
                        agentLoader,
                        named("sched").and(takesArguments(TimerTask.class, long.class, long.class)),
                        PropagationAdvice.TimerSchedule.class))
                .type(named("java.util.TimerThread"))
                .transform(timerRuns());
        if (Runtime.version().feature() < 21) {
            return builder; // the virtual-thread types and methods below do not exist before Java 21
        }
        return builder.type(named("java.lang.ThreadBuilders$VirtualThreadBuilder"))
                .transform(advice(
                        agentLoader,
                        named("unstarted").or(named("start")).and(takesArguments(Runnable.class)),
                        PropagationAdvice.VirtualThreadTask.class))
                .type(named("java.lang.Thread").and(declaresMethod(named("startVirtualThread"))))
                .transform(advice(
                        agentLoader,
                        named("startVirtualThread").and(takesArguments(Runnable.class)),
                        PropagationAdvice.VirtualThreadTask.class));
    }

    /**
     * The Timer's thread calls {@code task.run()} in one long loop, where no advice can wrap a single run: the
     * call itself is replaced by {@link Propagation#runTimerTask}, which binds what was captured at scheduling.
     */
    private static AgentBuilder.Transformer timerRuns() {
        Lazy<AsmVisitorWrapper> substitution = new Lazy<>(() -> {
            MethodDescription runTimerTask = ClassFiles.describe(Propagation.class)
                    .getDeclaredMethods()
                    .filter(named("runTimerTask").and(takesArguments(TimerTask.class)))
                    .getOnly();
            return MemberSubstitution.relaxed()
                    .method(named("run").and(takesArguments(0)).and(isDeclaredBy(TimerTask.class)))
                    .replaceWith(runTimerTask)
                    .on(named("mainLoop"));
        });
        return (builder, type, loader, module, domain) -> builder.visit(substitution.get());
    }

    /** The functional interfaces a CompletableFuture stage takes its function as. */
    private static final List<Class<?>> STAGE_FUNCTIONS =
            List.of(Runnable.class, Supplier.class, Function.class, Consumer.class, BiFunction.class, BiConsumer.class);

    /**
     * Every public CompletableFuture method taking a stage function first or second, async or not: the advice
     * is told which interface the parameter declares, so a function implementing several is wrapped as that one.
     */
    private static AgentBuilder.Transformer stageFunctions(ClassLoader agentLoader) {
        Lazy<List<AsmVisitorWrapper>> visitors = new Lazy<>(() -> {
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
        });
        return (builder, type, loader, module, domain) -> {
            for (AsmVisitorWrapper v : visitors.get()) {
                builder = builder.visit(v);
            }
            return builder;
        };
    }

    private static AgentBuilder leases(
            AgentBuilder builder, ClassLoader agentLoader, List<StartupConfig.Binding> bindings) {
        for (StartupConfig.Binding b : bindings) {
            ElementMatcher.Junction<MethodDescription> methods =
                    isMethod().and(named(b.methodName())).and(not(isAbstract())).and(not(isNative()));
            builder = builder.type(named(b.className()))
                    .transform(new AgentBuilder.Transformer.ForAdvice(
                                    Advice.withCustomMapping().bind(LeaseAdvice.LeaseName.class, b.lease()))
                            .include(agentLoader)
                            .advice(methods, LeaseAdvice.class.getName()))
                    .transform((type, description, loader, module, domain) -> {
                        if (description.getDeclaredMethods().filter(methods).isEmpty()) {
                            stop(b.className() + " loaded by " + loader + " has no method '" + b.methodName()
                                    + "' with a body; it cannot run under lease '" + b.lease() + "'");
                        }
                        return type;
                    });
        }
        return builder;
    }

    /** Advice read and parsed once, applied with {@code visit}: Advice only, nothing else changes. */
    private static AgentBuilder.Transformer advice(
            ClassLoader agentLoader, ElementMatcher<? super MethodDescription> on, Class<?> adviceClass) {
        Lazy<AsmVisitorWrapper> visitor = new Lazy<>(() ->
                Advice.to(ClassFiles.describe(adviceClass), ClassFiles.LOCATOR).on(on));
        return (builder, type, loader, module, domain) -> builder.visit(visitor.get());
    }

    /**
     * The agent's advice and helpers, described from their class files. Never by reflection: advice is built
     * while Byte Buddy transforms a type, and reflection would load the JDK types in the advice's signatures
     * (ForkJoinTask, ...) right then, under Byte Buddy's circularity lock, so they would never be instrumented.
     */
    private static final class ClassFiles {
        static final ClassFileLocator LOCATOR = new ClassFileLocator.Compound(
                ClassFileLocator.ForClassLoader.of(Installer.class.getClassLoader()),
                new ClassFileLocator.ForJarFile(FencedAgent.bootstrapJar));
        private static final TypePool POOL = TypePool.Default.of(LOCATOR);

        static TypeDescription describe(Class<?> type) {
            return POOL.describe(type.getName()).resolve();
        }
    }

    /**
     * Built on first use: advice is parsed only for a JDK type that is actually instrumented, so a type the
     * application never loads costs nothing at start.
     */
    private static final class Lazy<T> {
        private final Supplier<T> make;
        private volatile T value;

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

    /**
     * Byte Buddy's Nexus (a class injected to run initialisers) needs sun.misc.Unsafe, which Java 24+ warns
     * about. The agent never needs it: advice only, no initialisers. The shade plugin relocates the property
     * name with the package ({@code net.bytebuddy.nexus.disabled} becomes this), so setting it touches only our
     * copy of Byte Buddy, never one the application brings.
     */
    private static void disableNexus() {
        String key = "dev.fenced.internal.agent.shaded.bytebuddy.nexus.disabled";
        if (System.getProperty(key) == null) {
            System.setProperty(key, "true");
        }
    }

    /** Packages the agent never instruments (see {@link StartupConfig#NOT_INSTRUMENTED}). */
    private static ElementMatcher.Junction<TypeDescription> ignored() {
        ElementMatcher.Junction<TypeDescription> m = ElementMatchers.none();
        for (String prefix : NotInstrumented.PREFIXES) { // not StartupConfig's: it is unusable without the driver
            m = m.or(nameStartsWith(prefix));
        }
        return m;
    }

    /**
     * Instrumentation failures go to stderr: the agent must not initialise the application's logging at start.
     * A lease-bound class that cannot be instrumented would run its body without its lease: the JVM stops.
     */
    private static final class Errors extends AgentBuilder.Listener.Adapter {
        private final Set<String> leaseClasses;

        Errors(Set<String> leaseClasses) {
            this.leaseClasses = leaseClasses;
        }

        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable t) {
            if (leaseClasses.contains(typeName)) {
                stop("could not instrument lease-bound class " + typeName + " (" + t + "); its methods would run"
                        + " without their lease");
            }
            System.err.println("fenced agent: ERROR: could not instrument " + typeName + ": " + t);
        }
    }

    /**
     * Stops the JVM at once: a lease-bound method is about to run without its lease. Runtime.halt, not
     * System.exit: this runs inside class loading, where shutdown hooks could deadlock and the class's code
     * could run before exit completes.
     */
    static void stop(String why) {
        System.err.println("fenced agent: FATAL: " + why);
        System.err.println("fenced agent: the JVM is stopped so that no lease-bound method runs unfenced");
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }

    private static final class RetransformationErrors extends AgentBuilder.RedefinitionStrategy.Listener.Adapter {
        @Override
        public Iterable<? extends List<Class<?>>> onError(
                int index, List<Class<?>> batch, Throwable t, List<Class<?>> types) {
            System.err.println("fenced agent: ERROR: could not retransform " + batch + ": " + t);
            return List.of();
        }
    }
}
