package dev.fenced.internal.spring.lease;

import dev.fenced.LeaseManager;
import dev.fenced.internal.config.FencedConfig;
import javax.sql.DataSource;

/**
 * The lease manager behind the auto-configured ShedLock provider and Spring Integration lock registry: on the same
 * store and lease table as the starter's {@link LeaseManager} bean (one token sequence, so their tokens and
 * {@code @WithLease}'s never meet on a row out of order), but built {@code withoutRenewal()}, since ShedLock's
 * {@code lockAtMostFor} is an upper bound and a Spring Integration lock lasts its ttl unless its holder renews it.
 * Not a LeaseManager bean itself, so injecting the starter's LeaseManager by type stays unambiguous.
 */
public final class NonRenewingLeases implements AutoCloseable {

    private final LeaseManager leases;

    public NonRenewingLeases(DataSource store, FencedConfig config) {
        this.leases = LeaseManager.builder(store)
                .table(config.leaseTable())
                .createTable(config.leaseCreateTable())
                .tokenDomain(config.leaseTokenDomain())
                .withoutRenewal()
                .build();
    }

    public LeaseManager leaseManager() {
        return leases;
    }

    /** Releases every lock still held. */
    @Override
    public void close() {
        leases.close();
    }
}
