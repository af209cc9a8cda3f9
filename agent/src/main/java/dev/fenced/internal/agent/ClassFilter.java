package dev.fenced.internal.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The agent's one class file transformer. It selects by name alone, a set lookup per class the JVM loads: the
 * JDK types of {@link Installer#JDK_TYPES} (boot loader only) and the configured lease-bound classes. Only a
 * selected type reaches {@link Weaver}, whose Byte Buddy is loaded the first time one does, so the application
 * pays for Byte Buddy only when it loads an executor, a future or a lease-bound class, never for the rest.
 *
 * <p>A selected type first loaded while the agent is weaving another on the same thread (Byte Buddy's own
 * class loading) cannot be woven then; it is reported on stderr, and a lease-bound one stops the JVM, as any
 * failure to instrument one does.
 */
final class ClassFilter implements ClassFileTransformer {

    private final Set<String> jdkTypes = new HashSet<>();
    private final Set<String> leaseClasses = new HashSet<>();
    private final List<StartupConfig.Binding> bindings;
    private final boolean debug;
    private final ThreadLocal<String> weaving = new ThreadLocal<>();
    private volatile @Nullable Weaver weaver;

    ClassFilter(Set<String> jdkTypes, List<StartupConfig.Binding> bindings, boolean debug) {
        for (String t : jdkTypes) { // loops, not lambdas: the first lambda of a JVM costs milliseconds at start
            this.jdkTypes.add(t.replace('.', '/'));
        }
        for (StartupConfig.Binding b : bindings) {
            leaseClasses.add(b.className().replace('.', '/'));
        }
        this.bindings = bindings;
        this.debug = debug;
    }

    @Override
    public byte @Nullable [] transform(
            @Nullable ClassLoader loader,
            @Nullable String className,
            @Nullable Class<?> redefined,
            ProtectionDomain domain,
            byte[] bytes) {
        if (className == null
                || !(loader == null && jdkTypes.contains(className)) && !leaseClasses.contains(className)) {
            return null;
        }
        String typeName = className.replace('/', '.');
        boolean leaseBound = leaseClasses.contains(className);
        String outer = weaving.get();
        if (outer != null) {
            failed(typeName, leaseBound, "it was loaded while the agent was instrumenting " + outer);
            return null;
        }
        weaving.set(typeName);
        long start = System.nanoTime();
        try {
            byte[] woven = className.equals(VirtualThreadStart.THREAD)
                    ? VirtualThreadStart.weave(bytes)
                    : weaver().weave(loader, typeName, bytes);
            if (debug) {
                System.err.println("fenced agent: instrumented " + typeName + (redefined == null ? "" : " (loaded)")
                        + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
            return woven;
        } catch (Throwable t) {
            failed(typeName, leaseBound, t.toString());
            return null;
        } finally {
            weaving.remove();
        }
    }

    private Weaver weaver() {
        Weaver w = weaver;
        if (w == null) {
            synchronized (this) {
                w = weaver;
                if (w == null) {
                    w = new Weaver(bindings);
                    weaver = w;
                }
            }
        }
        return w;
    }

    /**
     * Instrumentation failures go to stderr: the agent must not initialise the application's logging. A
     * lease-bound class that cannot be instrumented would run its body without its lease: the JVM stops.
     */
    private static void failed(String typeName, boolean leaseBound, String why) {
        if (leaseBound) {
            Installer.stop("could not instrument lease-bound class " + typeName + " (" + why
                    + "); its methods would run without their lease");
        }
        System.err.println("fenced agent: ERROR: could not instrument " + typeName + ": " + why);
    }
}
