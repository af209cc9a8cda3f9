package dev.fenced.internal.lease;

import dev.fenced.Ticker;
import java.sql.SQLException;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * What a lease manager asks of its store, every call bounded by the budget given: PostgreSQL's own
 * ({@link LeaseStore}, which bounds each statement by aborting its connection), or a store of the SPI
 * ({@link BoundedStore}, which bounds each call on a worker thread).
 */
public interface StoreAccess {

    /** The token domain of the store's tokens. */
    String tokenDomain();

    /**
     * The database whose counter draws the store's tokens ({@link dev.fenced.internal.pg.DatabaseOrigin}), known
     * once a grant has been made; null for a store whose tokens are not one database's (etcd) or whose domain is
     * named for sharing across databases. The driver refuses a token of domain {@code fenced} drawn in another
     * database than the one it writes.
     */
    default @Nullable String tokenOrigin() {
        return null;
    }

    /** @return the grant, or null if someone else holds it */
    LeaseStore.@Nullable Grant grant(String name, String holder, long ttlMillis, long budgetNanos, Ticker sentClock)
            throws SQLException;

    LeaseStore.Renewal renew(
            String holder, String[] names, long[] tokens, long[] ttlMillis, long budgetNanos, Ticker sentClock)
            throws SQLException;

    int release(String holder, String[] names, long[] tokens, long budgetNanos) throws SQLException;

    /**
     * Releases one lease but leaves it taken until {@code holdMillis} after its grant or last renewal, or at once if
     * that time has passed; returns whether it was ours.
     */
    boolean releaseHolding(String holder, String name, long token, long holdMillis, long budgetNanos)
            throws SQLException;

    /** @return who holds it, or null if nobody does */
    LeaseStore.@Nullable Holder describe(String name, long budgetNanos) throws SQLException;

    /** Null when ready, else a note on what comes at the first grant; throws what a grant would. */
    @Nullable
    String check(long budgetNanos) throws SQLException;

    /** How many store operations ran out of their time budget. */
    int timeouts();

    /** Runs {@code work} (which calls this store and waits for it) on one of the store's worker threads. */
    Future<?> inBackground(Runnable work);
}
