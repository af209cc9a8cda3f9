package dev.fenced.internal.metrics;

/**
 * Every counter fenced keeps, with the name it is published under (JMX attribute, Micrometer meter) and what it
 * counts: the one list of them. {@link Counts} holds the values; {@link MetricsPublisher} and {@link
 * MicrometerMeters} publish whatever this enum lists.
 */
public enum Counter {
    WRITES_FENCED("fenced.writes.fenced", "statements sent with a token"),
    STALE_WRITES_REFUSED("fenced.writes.stale", "stale writes refused (a newer token was on a row)"),
    UNFENCED_WRITES_REFUSED("fenced.writes.unfenced.refused", "writes refused for want of a token (enforce)"),
    UNFENCED_WRITES_OBSERVED("fenced.writes.unfenced.observed", "writes without a token let through (observe)"),
    LOST_LEASE_WRITES_REFUSED("fenced.writes.lease_lost", "writes refused because their lease was lost"),
    UNSUPPORTED_REFUSED("fenced.statements.unsupported.refused", "statements refused as unfenceable (enforce)"),
    UNSUPPORTED_OBSERVED("fenced.statements.unsupported.observed", "unfenceable statements let through (observe)"),
    RELATIVE_UPDATES("fenced.statements.relative", "relative updates of protected rows planned"),
    REWRITES_PARSED("fenced.rewrites.parsed", "statements parsed (plan cache misses)"),
    REWRITES_CACHED("fenced.rewrites.cached", "plans served from the cache"),
    CATALOG_NOTICES(
            "fenced.catalog.notices", "notices of DDL heard from the event trigger (each has the catalog read again)"),
    LEASE_GRANTS("fenced.leases.granted", "leases granted"),
    LEASE_RENEWALS("fenced.leases.renewed", "lease renewals"),
    LEASE_RENEWALS_FAILED("fenced.leases.renewals_failed", "renewal statements that failed"),
    LEASES_LOST("fenced.leases.lost", "leases lost (renewal refused or deadline passed)");

    private final String meterName;
    private final String description;

    Counter(String meterName, String description) {
        this.meterName = meterName;
        this.description = description;
    }

    public String meterName() {
        return meterName;
    }

    public String description() {
        return description;
    }
}
