package dev.fenced.internal.lease;

import dev.fenced.Lease;
import dev.fenced.Ticker;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.metrics.Tracker;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The working part of a {@link dev.fenced.LeaseManager}: grants, the renewer, the callback thread, and
 * the release of everything still held at close. The public class validates arguments and waits.
 */
public final class LeaseKeeper implements AutoCloseable {

    private static final System.Logger LOG = Logs.get("dev.fenced.lease");
    private static final AtomicInteger MANAGERS = new AtomicInteger();

    /** A renewal interval standing for "never": each lease simply runs out at its deadline. */
    public static final long NEVER_RENEW_NANOS = Long.MAX_VALUE / 4;

    private final StoreAccess store;
    private final String holder;
    private final long fixedRenewEveryNanos; // 0: ttl/3 for each lease
    private final double clockDrift;
    private final long storeTimeoutNanos;
    private final Ticker ticker;
    private final Renewer renewer;
    private final CallbackDispatcher dispatcher;
    private final LeaseContext context;
    private final Tracker tracker = new Tracker();
    /** The manager's threads: the renewer's timer, the store's workers, the callback threads; closed with it. */
    private final FencedThreads threads = new FencedThreads();

    private volatile boolean closed;

    /**
     * @param clockDrift the clock-drift margin as a fraction of each lease's ttl
     * @param storeTimeoutNanos the longest any one store operation may take
     */
    public LeaseKeeper(
            DataSource dataSource,
            LeaseTableName table,
            boolean createTable,
            String holder,
            long fixedRenewEveryNanos,
            double clockDrift,
            long storeTimeoutNanos,
            Ticker ticker) {
        this(
                dev.fenced.spi.PostgresLeaseStore.create(dataSource, table.toString(), createTable),
                holder,
                fixedRenewEveryNanos,
                clockDrift,
                storeTimeoutNanos,
                ticker);
    }

    /**
     * A keeper on {@code spi}: PostgreSQL's store runs on this keeper's threads exactly as the default one, any other
     * store through {@link BoundedStore}, each call bounded by the time budget.
     *
     * @param clockDrift the clock-drift margin as a fraction of each lease's ttl
     * @param storeTimeoutNanos the longest any one store operation may take
     */
    public LeaseKeeper(
            dev.fenced.spi.LeaseStore spi,
            String holder,
            long fixedRenewEveryNanos,
            double clockDrift,
            long storeTimeoutNanos,
            Ticker ticker) {
        String id = Integer.toString(MANAGERS.incrementAndGet());
        this.store = spi instanceof dev.fenced.spi.PostgresLeaseStore pg
                ? new LeaseStore(
                        pg.dataSource(),
                        LeaseTableName.parse(pg.table()),
                        pg.createsTable(),
                        pg.tokenDomain(),
                        threads,
                        id)
                : new BoundedStore(spi, threads, id);
        this.holder = holder;
        this.fixedRenewEveryNanos = fixedRenewEveryNanos;
        this.clockDrift = clockDrift;
        this.storeTimeoutNanos = storeTimeoutNanos;
        this.ticker = ticker;
        this.renewer = new Renewer(store, holder, id, ticker, storeTimeoutNanos, tracker, threads);
        this.dispatcher = new CallbackDispatcher("fenced-lease-callbacks-" + id, threads);
        this.context = new LeaseContext(
                store,
                holder,
                renewer,
                dispatcher,
                ticker,
                storeTimeoutNanos,
                fixedRenewEveryNanos != NEVER_RENEW_NANOS,
                tracker);
    }

    /** Longer leases make no sense (a crash blocks work for one ttl) and would overflow nanosecond deadlines. */
    private static final long MAX_TTL_MILLIS = TimeUnit.DAYS.toMillis(365);

    /** A lease ttl in milliseconds, checked: between 1 ms and 365 days. */
    public static long checkedTtlMillis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        long ms;
        try {
            ms = ttl.isNegative() ? -1 : ttl.toNanos() / 1_000_000L;
        } catch (ArithmeticException tooLong) {
            ms = Long.MAX_VALUE;
        }
        if (ms < 1 || ms > MAX_TTL_MILLIS) {
            throw new IllegalArgumentException("fenced: a lease ttl must be between 1 ms and 365 days, got " + ttl);
        }
        return ms;
    }

    /** The longest any one store operation may take. */
    public long storeTimeoutNanos() {
        return storeTimeoutNanos;
    }

    /** The clock-drift margin of a lease with this ttl. */
    public long marginNanos(long ttlMillis) {
        return (long) (ttlMillis * 1_000_000L * clockDrift);
    }

    public String holder() {
        return holder;
    }

    /** False for a manager built without renewal, whose leases run out at their ttl unless extended. */
    public boolean renews() {
        return context.renews();
    }

    public StoreAccess store() {
        return store;
    }

    /** This manager's counters (each also counts in the JVM-wide totals). */
    public Tracker tracker() {
        return tracker;
    }

    /** How many leases are held right now. */
    public int heldCount() {
        return renewer.size();
    }

    /**
     * One grant attempt, given up after {@code budgetNanos}; on success the lease is renewed from now on and
     * bound to the calling thread.
     *
     * @return the lease, or null if another holder has it
     */
    public @Nullable Lease tryAcquire(String name, long ttlMillis, long budgetNanos) throws SQLException {
        checkOpen();
        LeaseStore.@Nullable Grant grant = store.grant(name, holder, ttlMillis, budgetNanos, ticker);
        if (grant == null) {
            return null;
        }
        tracker.increment(Counter.LEASE_GRANTS);
        long renewEvery = fixedRenewEveryNanos > 0 ? fixedRenewEveryNanos : ttlMillis * 1_000_000L / 3;
        HeldLease lease = new HeldLease(
                name, grant.token(), ttlMillis, renewEvery, grant.sentAtNanos(), marginNanos(ttlMillis), context);
        LeaseRegistry.held(lease, store.tokenDomain(), lease.token(), name);
        lease.bindToCurrentThread();
        renewer.add(lease);
        if (closed) {
            // close() ran while we were granting: it cannot have seen this lease, so give it back here.
            lease.close();
            checkOpen();
        }
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "fenced: granted lease '" + name + "' (token " + lease.token() + ") to " + holder);
        }
        return lease;
    }

    /** Who holds {@code name} now, for messages; null if unknown. */
    public LeaseStore.@Nullable Holder describe(String name, long budgetNanos) {
        try {
            return store.describe(name, budgetNanos);
        } catch (SQLException e) {
            return null;
        }
    }

    /** Stops renewing and releases every lease still held, with one statement. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<HeldLease> held = renewer.stop();
        // Newest first: leases taken one inside the other on this thread then unwind like nested
        // try-with-resources, and the thread ends up with the binding it had before the first one.
        held.sort(Comparator.comparingLong(HeldLease::token).reversed());
        List<HeldLease> toRelease = held.stream().filter(HeldLease::end).toList();
        if (!toRelease.isEmpty()) {
            String[] names = new String[toRelease.size()];
            long[] tokens = new long[toRelease.size()];
            for (int i = 0; i < names.length; i++) {
                names[i] = toRelease.get(i).name();
                tokens[i] = toRelease.get(i).token();
            }
            try {
                store.release(holder, names, tokens, storeTimeoutNanos);
            } catch (Exception e) {
                LOG.log(
                        Level.WARNING,
                        "fenced: could not release " + names.length + " leases of " + holder
                                + " at close; they stay held in the store until they expire: " + e.getMessage());
            }
        }
        threads.close(); // queued callbacks still run; nothing new is accepted
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("fenced: this LeaseManager (holder " + holder + ") is closed");
        }
    }
}
