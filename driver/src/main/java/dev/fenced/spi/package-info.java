/**
 * The service-provider interface of fenced: {@link dev.fenced.spi.LeaseStore}, where a
 * {@link dev.fenced.LeaseManager} keeps its leases and draws its tokens. PostgreSQL
 * ({@link dev.fenced.spi.PostgresLeaseStore}) is the default; other stores (etcd: {@code fenced-lease-etcd}) plug in
 * through {@link dev.fenced.LeaseManager.Builder#store}. Every store must pass {@code LeaseStoreContract}
 * ({@code fenced-lease-store-contract}).
 */
@NullMarked
package dev.fenced.spi;

import org.jspecify.annotations.NullMarked;
