package dev.fenced.context;

import dev.fenced.bootstrap.FencedContextStore;
import java.lang.reflect.Field;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Finds the thread-local the whole JVM shares. When the agent put {@link FencedContextStore} on the
 * bootstrap class path, that copy wins even if this driver was loaded child-first by an application
 * class loader that has its own copy; otherwise the driver's copy is used. The lookup happens once;
 * afterwards access is a plain {@code ThreadLocal.get()}.
 */
public final class ContextAccess {

    static final String STORE_CLASS = "dev.fenced.bootstrap.FencedContextStore";

    private static final ThreadLocal<AtomicLong> CURRENT = locate();
    /** Where the first fenced connection is recorded for the agent; null when no agent placed the store. */
    private static final AtomicReference<Object[]> FIRST_CONNECTION = locateFirstConnection();

    private ContextAccess() {
    }

    /** The cell bound to this thread, or null. */
    public static AtomicLong current() {
        return CURRENT.get();
    }

    /** Binds {@code cell} (may be null) and returns what was bound before. */
    public static AtomicLong swap(AtomicLong cell) {
        AtomicLong previous = CURRENT.get();
        if (cell == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(cell);
        }
        return previous;
    }

    /** True when the state is the bootstrap copy put there by the agent. */
    public static boolean sharedThroughBootstrap() {
        return bootstrapStore() != null;
    }

    /** Records the first fenced connection for the agent's leases (only when the agent is attached). */
    public static void recordConnection(String url, Properties info) {
        if (FIRST_CONNECTION != null && FIRST_CONNECTION.get() == null) {
            Properties copy = new Properties();
            if (info != null) {
                copy.putAll(info);
            }
            FIRST_CONNECTION.compareAndSet(null, new Object[] {url, copy});
        }
    }

    /** {@code {String url, Properties info}} of the first fenced connection, or null. */
    public static Object[] firstConnection() {
        return FIRST_CONNECTION == null ? null : FIRST_CONNECTION.get();
    }

    @SuppressWarnings("unchecked")
    private static AtomicReference<Object[]> locateFirstConnection() {
        Class<?> shared = bootstrapStore();
        if (shared == null) {
            return null;
        }
        try {
            return (AtomicReference<Object[]>) shared.getField("FIRST_CONNECTION").get(null);
        } catch (ReflectiveOperationException | ClassCastException e) {
            return null; // an agent built before this field existed
        }
    }

    @SuppressWarnings("unchecked")
    private static ThreadLocal<AtomicLong> locate() {
        Class<?> shared = bootstrapStore();
        if (shared != null && shared != FencedContextStore.class) {
            try {
                Field field = shared.getField("CURRENT");
                return (ThreadLocal<AtomicLong>) field.get(null);
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalStateException("fenced: the bootstrap context store is unusable", e);
            }
        }
        return FencedContextStore.CURRENT;
    }

    private static Class<?> bootstrapStore() {
        try {
            return Class.forName(STORE_CLASS, true, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}
