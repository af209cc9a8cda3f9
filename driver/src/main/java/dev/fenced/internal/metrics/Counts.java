package dev.fenced.internal.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One set of values of every {@link Counter}, with stale writes by table. Read-only outside this package: only a
 * {@link Tracker} adds to one, so the JVM-wide {@link Tracker#totals()} cannot be reset or bumped by anyone.
 * Increments are {@link LongAdder}s: no locks and no contention on the statement path.
 */
public final class Counts {

    private final LongAdder[] adders = new LongAdder[Counter.values().length];
    private final Map<String, LongAdder> staleByTable = new ConcurrentHashMap<>();

    Counts() {
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
    }

    void add(Counter counter, long n) {
        adders[counter.ordinal()].add(n);
    }

    void staleWriteRefused(String table) {
        add(Counter.STALE_WRITES_REFUSED, 1);
        staleByTable.computeIfAbsent(table, t -> new LongAdder()).increment();
    }

    public long value(Counter counter) {
        return adders[counter.ordinal()].sum();
    }

    /** Every counter by meter name, in {@link Counter}'s order. */
    public Map<String, Long> counters() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            out.put(c.meterName(), value(c));
        }
        return out;
    }

    /** Stale writes refused, per table. */
    public Map<String, Long> staleByTable() {
        Map<String, Long> out = new TreeMap<>();
        staleByTable.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
