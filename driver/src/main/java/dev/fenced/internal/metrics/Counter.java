package dev.fenced.internal.metrics;

import java.util.concurrent.atomic.LongAdder;

/** Every counter fenced keeps, with the name it is published under (JMX attribute, Micrometer meter). */
public enum Counter {
    WRITES_FENCED("fenced.writes.fenced", "statements sent with a token", FencedMetrics.WRITES_FENCED),
    STALE_WRITES_REFUSED("fenced.writes.stale", "stale writes refused (a newer token was on a row)",
            FencedMetrics.STALE_WRITES_REFUSED),
    UNFENCED_WRITES_REFUSED("fenced.writes.unfenced.refused", "writes refused for want of a token (enforce)",
            FencedMetrics.UNFENCED_WRITES_REFUSED),
    UNFENCED_WRITES_OBSERVED("fenced.writes.unfenced.observed", "writes without a token let through (observe)",
            FencedMetrics.UNFENCED_WRITES_OBSERVED),
    LOST_LEASE_WRITES_REFUSED("fenced.writes.lease_lost", "writes refused because their lease was lost",
            FencedMetrics.LOST_LEASE_WRITES_REFUSED),
    UNSUPPORTED_REFUSED("fenced.statements.unsupported.refused", "statements refused as unfenceable (enforce)",
            FencedMetrics.UNSUPPORTED_REFUSED),
    UNSUPPORTED_OBSERVED("fenced.statements.unsupported.observed", "unfenceable statements let through (observe)",
            FencedMetrics.UNSUPPORTED_OBSERVED),
    RELATIVE_UPDATES("fenced.statements.relative", "relative updates of protected rows planned",
            FencedMetrics.RELATIVE_UPDATES),
    REWRITES_PARSED("fenced.rewrites.parsed", "statements parsed (plan cache misses)", FencedMetrics.REWRITES_PARSED),
    REWRITES_CACHED("fenced.rewrites.cached", "plans served from the cache", FencedMetrics.REWRITES_CACHED),
    LEASE_GRANTS("fenced.leases.granted", "leases granted", FencedMetrics.LEASE_GRANTS),
    LEASE_RENEWALS("fenced.leases.renewed", "lease renewals", FencedMetrics.LEASE_RENEWALS),
    LEASE_RENEWALS_FAILED("fenced.leases.renewals_failed", "renewal statements that failed",
            FencedMetrics.LEASE_RENEWALS_FAILED),
    LEASES_LOST("fenced.leases.lost", "leases lost (renewal refused or deadline passed)", FencedMetrics.LEASES_LOST);

    private final String meterName;
    private final String description;
    private final LongAdder adder;

    Counter(String meterName, String description, LongAdder adder) {
        this.meterName = meterName;
        this.description = description;
        this.adder = adder;
    }

    public String meterName() {
        return meterName;
    }

    public String description() {
        return description;
    }

    public long value() {
        return adder.sum();
    }
}
