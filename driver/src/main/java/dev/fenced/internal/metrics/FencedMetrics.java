package dev.fenced.internal.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The process-wide counters. Increments are {@link LongAdder}s: no locks and no contention on the
 * statement path. Read them through {@link dev.fenced.FencedStats}, JMX ({@code dev.fenced:type=Metrics})
 * or Micrometer; {@link Counter} names them.
 */
public final class FencedMetrics {

    public static final LongAdder WRITES_FENCED = new LongAdder();
    public static final LongAdder STALE_WRITES_REFUSED = new LongAdder();
    public static final LongAdder UNFENCED_WRITES_OBSERVED = new LongAdder();
    public static final LongAdder UNFENCED_WRITES_REFUSED = new LongAdder();
    public static final LongAdder UNSUPPORTED_REFUSED = new LongAdder();
    public static final LongAdder UNSUPPORTED_OBSERVED = new LongAdder();
    public static final LongAdder LOST_LEASE_WRITES_REFUSED = new LongAdder();
    public static final LongAdder RELATIVE_UPDATES = new LongAdder();
    public static final LongAdder REWRITES_PARSED = new LongAdder();
    public static final LongAdder REWRITES_CACHED = new LongAdder();
    public static final LongAdder LEASE_GRANTS = new LongAdder();
    public static final LongAdder LEASE_RENEWALS = new LongAdder();
    public static final LongAdder LEASE_RENEWALS_FAILED = new LongAdder();
    public static final LongAdder LEASES_LOST = new LongAdder();

    private static final Map<String, LongAdder> STALE_BY_TABLE = new ConcurrentHashMap<>();

    private FencedMetrics() {
    }

    public static void staleWriteRefused(String table) {
        STALE_WRITES_REFUSED.increment();
        STALE_BY_TABLE.computeIfAbsent(table, t -> new LongAdder()).increment();
    }

    /** Stale writes refused, per table. */
    public static Map<String, Long> staleByTable() {
        Map<String, Long> out = new TreeMap<>();
        STALE_BY_TABLE.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
