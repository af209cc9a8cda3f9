package dev.fenced.internal.agent;

import dev.fenced.internal.agent.bootstrap.LeaseHooks;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Creates the lease runtime for an application class loader: finds the loader that holds its fenced-driver
 * and defines the agent's {@code dev.fenced.internal.agent.lease} classes in a small child of it, so they link against
 * that driver (the agent jar has none of its own) and share its context and leases.
 */
final class GlueFactory implements Function<ClassLoader, LeaseHooks> {

    static final String GLUE_PACKAGE = "dev.fenced.internal.agent.lease.";
    private static final String RUNTIME = GLUE_PACKAGE + "LeaseRuntime";

    private final ClassLoader agentLoader;
    private final @Nullable String configFile;
    private final Map<ClassLoader, LeaseHooks> byDriverLoader = new WeakHashMap<>();

    GlueFactory(ClassLoader agentLoader, @Nullable String configFile) {
        this.agentLoader = agentLoader;
        this.configFile = configFile;
    }

    @Override
    public synchronized LeaseHooks apply(ClassLoader appLoader) {
        ClassLoader driverLoader;
        try {
            driverLoader =
                    Class.forName("dev.fenced.LeaseManager", false, appLoader).getClassLoader();
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    "fenced agent: a lease-bound method is loaded by " + appLoader
                            + ", which sees no fenced-driver (dev.fenced.LeaseManager): add fenced-driver to the application",
                    e);
        }
        LeaseHooks hooks = byDriverLoader.get(driverLoader);
        if (hooks == null) {
            try {
                Class<?> runtime = Class.forName(RUNTIME, true, new GlueLoader(driverLoader, agentLoader));
                hooks = (LeaseHooks) runtime.getConstructor(String.class).newInstance(configFile);
            } catch (InvocationTargetException e) {
                // the constructor's own exception; reflection always sets it (the exception itself if not)
                Throwable thrown = e.getCause();
                Throwable cause = thrown == null ? e : thrown;
                throw new IllegalStateException(
                        "fenced agent: cannot start the lease runtime: " + cause.getMessage(), cause);
            } catch (ReflectiveOperationException | LinkageError e) {
                throw new IllegalStateException("fenced agent: cannot start the lease runtime: " + e, e);
            }
            byDriverLoader.put(driverLoader, hooks);
        }
        return hooks;
    }

    /** Child of the driver's loader that defines the glue classes from the agent jar's bytes. */
    static final class GlueLoader extends ClassLoader {
        static {
            registerAsParallelCapable();
        }

        private final ClassLoader agentLoader;

        GlueLoader(ClassLoader driverLoader, ClassLoader agentLoader) {
            super(driverLoader);
            this.agentLoader = agentLoader;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("dev.fenced.internal.agent.bootstrap.")) {
                return Class.forName(name, false, null);
            }
            if (!name.startsWith(GLUE_PACKAGE)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    String path = name.replace('.', '/') + ".class";
                    try (InputStream in = agentLoader.getResourceAsStream(path)) {
                        if (in == null) {
                            throw new ClassNotFoundException(name);
                        }
                        byte[] bytes = in.readAllBytes();
                        c = defineClass(name, bytes, 0, bytes.length, GlueFactory.class.getProtectionDomain());
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
