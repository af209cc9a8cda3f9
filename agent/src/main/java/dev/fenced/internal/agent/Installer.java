package dev.fenced.internal.agent;

import dev.fenced.internal.agent.bootstrap.LeaseGate;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Installs the instrumentation: one {@link ClassFilter} that selects types by name, and retransformation of the
 * JDK types it selects that are already loaded (on Java 17, for a tiny main, none; on 21+, {@code Thread}).
 * Nothing of Byte Buddy is loaded here: the {@link Weaver} is, when the first selected type is.
 */
final class Installer {

    private Installer() {}

    static void install(@Nullable String configFile, Instrumentation inst) throws FencedAgent.AgentStartException {
        boolean debug = System.getenv("FENCED_AGENT_DEBUG") != null;
        long t0 = System.nanoTime();
        @Nullable StartupConfig config;
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

        List<StartupConfig.Binding> bindings = config == null ? List.of() : config.bindings;
        if (!bindings.isEmpty()) {
            LeaseGate.install(new GlueFactory(Installer.class.getClassLoader(), configFile));
        }
        Set<String> jdkTypes = jdkTypes();
        inst.addTransformer(new ClassFilter(jdkTypes, bindings, debug), true);
        long tAdd = System.nanoTime();
        retransformLoaded(inst, jdkTypes);
        if (debug) {
            System.err.println("fenced agent: configuration " + (tConfig - t0) / 1_000_000 + " ms, transformer "
                    + (tAdd - tConfig) / 1_000_000 + " ms, retransforming loaded JDK types "
                    + (System.nanoTime() - tAdd) / 1_000_000 + " ms");
        }
    }

    /** The JDK types instrumented on this JVM: the virtual-thread entry points exist from Java 21 on. */
    private static Set<String> jdkTypes() {
        if (Runtime.version().feature() >= 21) {
            return JDK_TYPES;
        }
        Set<String> types = new HashSet<>(JDK_TYPES);
        types.remove("java.lang.ThreadBuilders$VirtualThreadBuilder");
        types.remove("java.lang.Thread");
        return types;
    }

    /**
     * Retransforms the JDK types to instrument that are already loaded; a type loaded later is instrumented as it
     * loads. A type first loaded while a retransformation runs (Byte Buddy's own class loading) was skipped by
     * {@link ClassFilter}: each batch after the first picks up what was loaded during the previous one, until none
     * is new.
     */
    private static void retransformLoaded(Instrumentation inst, Set<String> jdkTypes) {
        Set<Class<?>> seen = new HashSet<>();
        while (true) {
            List<Class<?>> batch = new ArrayList<>();
            for (Class<?> c : inst.getInitiatedClasses(null)) {
                if (c.getClassLoader() == null && jdkTypes.contains(c.getName()) && seen.add(c)) {
                    batch.add(c);
                }
            }
            if (batch.isEmpty()) {
                return;
            }
            try {
                inst.retransformClasses(batch.toArray(new Class<?>[0]));
            } catch (UnmodifiableClassException | RuntimeException e) {
                System.err.println("fenced agent: ERROR: could not retransform " + batch + ": " + e);
            }
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
}
