package dev.fenced.internal.agent.bootstrap;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Function;

/**
 * Entry point of the advice inlined into lease-bound methods. It finds the lease runtime for the class
 * loader of the instrumented class (the runtime lives next to the fenced-driver that class loader sees),
 * creating it on first use through the factory the agent installed at start.
 */
public final class LeaseGate {

    private static volatile Function<ClassLoader, LeaseHooks> factory;
    private static final Map<ClassLoader, LeaseHooks> RUNTIMES = new WeakHashMap<>();

    private LeaseGate() {}

    /** Installed once by the agent's premain. */
    public static void install(Function<ClassLoader, LeaseHooks> runtimeFactory) {
        factory = runtimeFactory;
    }

    /**
     * True when this agent instruments lease-bound methods (its configuration names some). Spring's starter asks, by
     * reflection, so that a configured method never runs under two lease runtimes, nor under none.
     */
    public static boolean installed() {
        return factory != null;
    }

    /** See {@link LeaseHooks#enter}; {@code type} is the instrumented class, {@code method} its method's name. */
    public static Object enter(String lease, String method, Class<?> type) {
        return hooks(type).enter(lease, type.getName() + "#" + method);
    }

    /** After the body of a lease-bound method, with what {@link #enter} returned. Never throws. */
    public static void exit(Object entered) {
        if (entered instanceof AutoCloseable) {
            try {
                ((AutoCloseable) entered).close();
            } catch (Throwable t) {
                System.err.println("fenced agent: releasing a lease failed: " + t);
            }
        }
    }

    private static LeaseHooks hooks(Class<?> type) {
        Function<ClassLoader, LeaseHooks> f = factory;
        if (f == null) {
            throw new IllegalStateException("fenced agent: lease runtime not installed");
        }
        ClassLoader loader = type.getClassLoader();
        synchronized (RUNTIMES) {
            LeaseHooks hooks = RUNTIMES.get(loader);
            if (hooks == null) {
                hooks = f.apply(loader);
                RUNTIMES.put(loader, hooks);
            }
            return hooks;
        }
    }
}
