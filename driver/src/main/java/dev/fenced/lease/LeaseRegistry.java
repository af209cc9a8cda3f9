package dev.fenced.lease;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which lease a token belongs to, so that a refused write can name the lease instead of only a number.
 * Held leases are listed until they end; ended ones (lost or closed) are kept, most recent first, up to
 * {@value #RECENT_LIMIT}, because a task that still carries a poisoned token may write long after the
 * lease is gone. Nothing else is kept: a long-running JVM that takes millions of leases keeps a bounded
 * map. Consulted only on the error path.
 */
public final class LeaseRegistry {

    static final int RECENT_LIMIT = 4096;

    private static final Map<Long, String> HELD = new ConcurrentHashMap<>();
    private static final Map<Long, String> RECENT = new ConcurrentHashMap<>();
    private static final Queue<Long> RECENT_ORDER = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger RECENT_SIZE = new AtomicInteger();

    private LeaseRegistry() {
    }

    /** The name of the lease granted with {@code token} in this JVM, held or recently ended; else null. */
    public static String nameOf(long token) {
        String name = HELD.get(token);
        return name != null ? name : RECENT.get(token);
    }

    static void held(long token, String name) {
        HELD.put(token, name);
    }

    /** The lease was lost or closed: move it to the bounded list of recent ones. */
    static void ended(long token) {
        String name = HELD.remove(token);
        if (name == null || RECENT.putIfAbsent(token, name) != null) {
            return;
        }
        RECENT_ORDER.add(token);
        if (RECENT_SIZE.incrementAndGet() > RECENT_LIMIT) {
            Long eldest = RECENT_ORDER.poll();
            if (eldest != null) {
                RECENT.remove(eldest);
                RECENT_SIZE.decrementAndGet();
            }
        }
    }

    /** For tests: how many entries are kept. */
    static int size() {
        return HELD.size() + RECENT.size();
    }
}
