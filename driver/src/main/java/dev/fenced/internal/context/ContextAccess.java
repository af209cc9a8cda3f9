package dev.fenced.internal.context;

import dev.fenced.internal.bootstrap.FencedContextStore;
import java.lang.reflect.Field;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Finds the thread-local the whole JVM shares. When the agent put {@link FencedContextStore} on the
 * bootstrap class path, that copy wins even if this driver was loaded child-first by an application
 * class loader that has its own copy; otherwise the driver's copy is used. The lookup happens once;
 * afterwards access is a plain {@code ThreadLocal.get()}.
 */
public final class ContextAccess {

    static final String STORE_CLASS = "dev.fenced.internal.bootstrap.FencedContextStore";

    private static final ThreadLocal<AtomicLong> CURRENT = locate();
    /** Where the first fenced connection is recorded for the agent; null when no agent placed the store. */
    private static final @Nullable AtomicReference<Object[]> FIRST_CONNECTION = locateFirstConnection();

    private ContextAccess() {}

    /**
     * The thread-local itself. For fenced's tests only: their leak check ({@code dev.fenced.it.leak.LeakCheck}, a
     * module of its own that does not depend on the driver) reads it on other threads. Nothing in fenced calls it.
     */
    public static ThreadLocal<AtomicLong> threadLocal() {
        return CURRENT;
    }

    /** The cell bound to this thread, or null. */
    public static @Nullable AtomicLong current() {
        return CURRENT.get();
    }

    /**
     * What a hand-over to another thread carries (Micrometer context propagation for Spring and Reactor, and
     * whatever else hands a task over without the agent): the cell bound here, live or lost (a lost one is
     * refused there as here), or null. Never an unfenced section's marker: a section is for its own thread and
     * its own duration, and closing it revokes nothing, so a task handed over inside one carries nothing (its
     * protected writes are refused). The agent's {@code Propagation.capture()} applies the same rule on the
     * bootstrap side, which cannot call this class.
     */
    public static @Nullable AtomicLong capture() {
        AtomicLong cell = CURRENT.get();
        return cell == null || cell.get() == TokenCells.UNFENCED ? null : cell;
    }

    /** Binds {@code cell} (may be null) and returns what was bound before. */
    public static @Nullable AtomicLong swap(@Nullable AtomicLong cell) {
        AtomicLong previous = CURRENT.get();
        if (cell == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(cell);
        }
        return previous;
    }

    /**
     * Scopes closed out of order on this thread, their cell to the binding from before them: closing what
     * was opened inside one restores past it. Created only once that happens.
     */
    private static final ThreadLocal<Map<AtomicLong, AtomicLong>> CLOSED_OUT_OF_ORDER = new ThreadLocal<>();

    /** {@code cell}'s scope was closed while something opened inside it is still bound. */
    public static void closedOutOfOrder(AtomicLong cell, @Nullable AtomicLong previous) {
        Map<AtomicLong, AtomicLong> skipped = CLOSED_OUT_OF_ORDER.get();
        if (skipped == null) {
            skipped = new IdentityHashMap<>();
            CLOSED_OUT_OF_ORDER.set(skipped);
        }
        skipped.put(cell, previous);
    }

    /**
     * Closing a scope or lease: binds {@code previous}, what was bound when it was opened, or, if that belongs
     * to a scope already closed out of order, what was bound before that one.
     */
    public static void restore(@Nullable AtomicLong previous) {
        AtomicLong b = previous;
        Map<AtomicLong, AtomicLong> skipped = CLOSED_OUT_OF_ORDER.get();
        if (skipped != null) {
            while (skipped.containsKey(b)) {
                b = skipped.remove(b);
            }
            if (skipped.isEmpty()) {
                CLOSED_OUT_OF_ORDER.remove();
            }
        }
        swap(b);
    }

    /**
     * Runs {@code work} with nothing bound, restoring the thread's binding afterwards: for the library's own
     * threads, whose work (renewals, onLost callbacks) belongs to no caller's token.
     */
    public static void runWithNothingBound(Runnable work) {
        AtomicLong previous = swap(null);
        try {
            work.run();
        } finally {
            swap(previous);
        }
    }

    /** True when the state is the bootstrap copy put there by the agent. */
    public static boolean sharedThroughBootstrap() {
        return bootstrapStore() != null;
    }

    /** Records the first fenced connection for the agent's leases (only when the agent is attached). */
    public static void recordConnection(String url, @Nullable Properties info) {
        if (FIRST_CONNECTION != null && FIRST_CONNECTION.get() == null) {
            Properties copy = new Properties();
            if (info != null) {
                copy.putAll(info);
            }
            FIRST_CONNECTION.compareAndSet(null, new Object[] {url, copy});
        }
    }

    /** {@code {String url, Properties info}} of the first fenced connection, or null. */
    public static Object @Nullable [] firstConnection() {
        return FIRST_CONNECTION == null ? null : FIRST_CONNECTION.get();
    }

    @SuppressWarnings("unchecked")
    private static @Nullable AtomicReference<Object[]> locateFirstConnection() {
        Class<?> shared = bootstrapStore();
        if (shared == null) {
            return null;
        }
        try {
            return (AtomicReference<Object[]>)
                    shared.getField("FIRST_CONNECTION").get(null);
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

    private static @Nullable Class<?> bootstrapStore() {
        try {
            return Class.forName(STORE_CLASS, true, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}
