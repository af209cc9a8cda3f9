/**
 * {@link dev.fenced.lease.contract.LeaseStoreContract}: the JUnit 5 tests every {@link dev.fenced.spi.LeaseStore}
 * passes. A store's test class extends it and says how to make a store on its backend.
 */
@NullMarked
package dev.fenced.lease.contract;

import org.jspecify.annotations.NullMarked;
