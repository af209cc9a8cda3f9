package dev.fenced;

import dev.fenced.internal.metrics.FencedMetrics;
import dev.fenced.internal.metrics.MetricsPublisher;
import java.util.Map;

/**
 * fenced's counters, read in code. The same numbers are published over JMX ({@code dev.fenced:type=Metrics})
 * and, when Micrometer is on the class path, as {@code fenced.*} meters in its global registry.
 */
public final class FencedStats {

    private FencedStats() {
    }

    /** Every counter by name: {@code fenced.writes.fenced}, {@code fenced.writes.stale}, ... */
    public static Map<String, Long> counters() {
        return MetricsPublisher.counters();
    }

    /** Stale writes refused, by protected table. */
    public static Map<String, Long> staleWritesByTable() {
        return FencedMetrics.staleByTable();
    }
}
