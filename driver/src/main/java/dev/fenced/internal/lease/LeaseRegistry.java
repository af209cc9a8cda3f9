package dev.fenced.internal.lease;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Which lease a token belongs to, so that a refused write can name the lease instead of only a number.
 *
 * <p>Held leases are listed until they end; ended ones (lost or closed) are kept, oldest evicted first, up
 * to {@value #RECENT_LIMIT}, because a task that still carries a poisoned token may write long after the
 * lease is gone. Nothing else is kept, so a JVM that takes millions of leases keeps a bounded map.
 *
 * <p>Tokens are unique per lease store, not per JVM: two managers on two databases can both hold token
 * 17. Each lease is therefore its own entry, removed by identity, and a token that names several leases
 * reports them all. Consulted only on the error path; updated once per grant and once per end.
 */
public final class LeaseRegistry {

    static final int RECENT_LIMIT = 4096;

    private record Entry(Object lease, String domain, String name, boolean ended) {}

    private record Ended(long token, Object lease) {}

    private static final Map<Long, List<Entry>> BY_TOKEN = new ConcurrentHashMap<>();
    private static final Queue<Ended> RECENT_ORDER = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger RECENT_SIZE = new AtomicInteger();

    private LeaseRegistry() {}

    /**
     * The name of the lease granted with {@code token} in this JVM, held or recently ended; null if none.
     * Held leases win over ended ones; several leases with that token (from different stores) come back
     * as {@code a or b}.
     */
    public static @Nullable String nameOf(long token) {
        List<Entry> entries = BY_TOKEN.get(token);
        if (entries == null) {
            return null;
        }
        Set<String> held = new LinkedHashSet<>();
        Set<String> ended = new LinkedHashSet<>();
        for (Entry e : entries) {
            (e.ended ? ended : held).add(e.name);
        }
        Set<String> names = held.isEmpty() ? ended : held;
        return names.isEmpty() ? null : String.join(" or ", names);
    }

    /**
     * True when {@code token} was granted in this JVM, in token domain {@code domain}, to leases that have all
     * ended (lost or closed), among the {@value #RECENT_LIMIT} most recently ended: binding it again by number would
     * write with a released token. A lease still held with that number (another store's) keeps it bindable, and a
     * lease of another domain says nothing about it (an etcd revision and a PostgreSQL token may be the same number).
     */
    public static boolean endedHere(String domain, long token) {
        List<Entry> entries = BY_TOKEN.get(token);
        if (entries == null) {
            return false;
        }
        boolean any = false;
        for (Entry e : entries) {
            if (e.domain.equals(domain)) {
                if (!e.ended) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    static void held(Object lease, String domain, long token, String name) {
        BY_TOKEN.compute(token, (k, list) -> with(list, new Entry(lease, domain, name, false)));
    }

    /** The lease was lost or closed: keep its name among the bounded recent ones. */
    static void ended(Object lease, long token) {
        boolean[] moved = new boolean[1];
        BY_TOKEN.computeIfPresent(token, (k, list) -> {
            List<Entry> out = new ArrayList<>(list.size());
            for (Entry e : list) {
                if (e.lease == lease && !e.ended) {
                    out.add(new Entry(lease, e.domain, e.name, true));
                    moved[0] = true;
                } else {
                    out.add(e);
                }
            }
            return List.copyOf(out);
        });
        if (!moved[0]) {
            return;
        }
        RECENT_ORDER.add(new Ended(token, lease));
        if (RECENT_SIZE.incrementAndGet() > RECENT_LIMIT) {
            Ended eldest = RECENT_ORDER.poll();
            if (eldest != null) {
                RECENT_SIZE.decrementAndGet();
                BY_TOKEN.computeIfPresent(eldest.token, (k, list) -> without(list, eldest.lease));
            }
        }
    }

    /** For tests: how many leases are remembered. */
    static int size() {
        return BY_TOKEN.values().stream().mapToInt(List::size).sum();
    }

    private static List<Entry> with(@Nullable List<Entry> list, Entry entry) {
        if (list == null) {
            return List.of(entry);
        }
        List<Entry> out = new ArrayList<>(list);
        out.add(entry);
        return List.copyOf(out);
    }

    /** Null when none is left: the token's mapping is then removed. */
    private static @Nullable List<Entry> without(List<Entry> list, Object lease) {
        List<Entry> out = new ArrayList<>(list.size());
        for (Entry e : list) {
            if (e.lease != lease) {
                out.add(e);
            }
        }
        return out.isEmpty() ? null : List.copyOf(out);
    }
}
