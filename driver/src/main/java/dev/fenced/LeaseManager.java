package dev.fenced;

import dev.fenced.internal.lease.HolderIdentity;
import dev.fenced.internal.lease.LeaseKeeper;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.spi.LeaseStore;
import dev.fenced.spi.PostgresLeaseStore;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Grants {@link Lease}s with fencing tokens from a table in your PostgreSQL database (or from another
 * {@link LeaseStore}: {@link Builder#store}).
 *
 * <pre>{@code
 * LeaseManager leases = LeaseManager.create(dataSource);      // one per application
 * Optional<Lease> lease = leases.tryAcquire("nightly-totals", Duration.ofSeconds(30));
 * if (lease.isPresent()) {
 *     try (Lease l = lease.get()) {
 *         // writes to protected tables on this thread carry l.token()
 *     }
 * }
 * }</pre>
 *
 * <p>Tokens come from one sequence ({@code <table>_token_seq}) and only grow, across all lease names,
 * releases, expiries and restarts. Expiry is decided by the database clock; the manager renews every lease
 * it holds in the background (every ttl/3 by default, all leases in one statement per tick) and loses a
 * lease the moment it can no longer be sure of it: the token is poisoned, so the fenced driver refuses
 * further protected writes under it, and {@link Lease#onLost} callbacks run.
 *
 * <p>Each operation borrows a connection from the {@link DataSource} for one autocommit statement and gives
 * it back; no advisory locks, no session state, so any pool and PgBouncer in transaction mode are fine. The
 * DataSource must point at the primary: a store on a standby refuses to grant ({@link FencingException#LEASE_STORE}).
 *
 * <p>Every store operation is bounded in time by the manager itself, whatever the DataSource and its pool
 * do ({@link Builder#storeTimeout}, default {@value #DEFAULT_STORE_TIMEOUT_MILLIS} ms): a grant, a renewal or a
 * release that gets no answer (a network that silently drops everything) is given up and its connection
 * aborted. {@link #acquire} returns within {@code maxWait} plus at most {@value #ACQUIRE_GRACE_MILLIS} ms twice
 * (its last attempt and the look-up that names the holder), {@link Lease#close()} within the store timeout, and
 * renewal resumes as soon as the store answers again.
 *
 * <p>A lease's own deadline is its ttl less a clock-drift margin ({@link Builder#clockDrift}, default a tenth
 * of the ttl), counted from when its grant or last renewal was sent: expiry is the database clock's call,
 * and a database clock that runs ahead of ours would otherwise end the lease there while we still believe in it.
 *
 * <p>Thread-safe. {@link #close()} stops renewing and releases every lease still held.
 */
public final class LeaseManager implements AutoCloseable {

    /** Polls for a busy lease start this fast and slow down to at most {@link #MAX_POLL_NANOS}. */
    private static final long MIN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final long MAX_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Default of {@link Builder#storeTimeout}. */
    public static final long DEFAULT_STORE_TIMEOUT_MILLIS = 5_000;

    /** Default of {@link Builder#clockDrift}: the margin is a tenth of the ttl. */
    public static final double DEFAULT_CLOCK_DRIFT = 0.1;

    /** What acquire's last attempt is given at least, however little of maxWait is left. */
    public static final long ACQUIRE_GRACE_MILLIS = 500;

    private static final long ACQUIRE_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(ACQUIRE_GRACE_MILLIS);

    private final LeaseKeeper keeper;
    private final @Nullable Duration renewalInterval;
    private final Ticker ticker;

    /** Renewal interval standing for "never": the lease simply runs out at its deadline. */
    private static final long NEVER_RENEW_NANOS = LeaseKeeper.NEVER_RENEW_NANOS;

    private LeaseManager(Builder b) {
        this.renewalInterval = b.renewalInterval;
        this.ticker = b.ticker;
        this.keeper = new LeaseKeeper(
                b.store != null
                        ? b.store
                        : PostgresLeaseStore.create(
                                Objects.requireNonNull(b.dataSource), b.table.toString(), b.createTable, b.tokenDomain),
                Objects.requireNonNull(b.holder, "build() names a holder"),
                b.renew ? (b.renewalInterval == null ? 0 : b.renewalInterval.toNanos()) : NEVER_RENEW_NANOS,
                b.clockDrift,
                b.storeTimeout.toNanos(),
                b.ticker);
    }

    /** A manager with the defaults: holder {@code host:pid:random}, table {@code fenced_lease}, created if missing. */
    public static LeaseManager create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"), null);
    }

    /**
     * A builder for a manager whose leases and tokens live in {@code store} (etcd, say, or PostgreSQL through
     * {@link PostgresLeaseStore}) instead of a table of a DataSource: see {@link Builder#store}.
     */
    public static Builder builder(LeaseStore store) {
        return new Builder(null, Objects.requireNonNull(store, "store"));
    }

    /**
     * Takes lease {@code name} if nobody holds it (or its holder let it expire or released it), without
     * waiting. On success the lease's token is bound to the calling thread until the lease is closed.
     * A manager does not re-enter its own leases: a second call for a lease it holds returns empty.
     *
     * @param ttl how long the lease lasts without renewal; the database lets it expire after that
     * @return the lease, or empty if another holder has it
     * @throws FencingException with SQLState {@link FencingException#LEASE_STORE} if the store cannot grant
     *         (a standby, a missing table with createTable off, no privilege)
     * @throws SQLException if the database cannot be reached
     */
    public Optional<Lease> tryAcquire(String name, Duration ttl) throws SQLException {
        checkName(name);
        return Optional.ofNullable(keeper.tryAcquire(name, ttlMillis(ttl), keeper.storeTimeoutNanos()));
    }

    /**
     * Takes lease {@code name}, waiting up to {@code maxWait} for its holder to release it or let it expire.
     * Polls with a growing, jittered pause (10 ms up to 1 s, and at most a tenth of the ttl). Returns within
     * {@code maxWait} plus at most twice {@value #ACQUIRE_GRACE_MILLIS} ms, however slow or silent the store.
     *
     * @throws FencingException with SQLState {@link FencingException#LEASE_TIMEOUT} if the lease was still held
     *         by someone else when {@code maxWait} ran out
     */
    public Lease acquire(String name, Duration ttl, Duration maxWait) throws SQLException {
        checkName(name);
        long ttlMillis = ttlMillis(ttl);
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("fenced: maxWait must not be negative, got " + maxWait);
        }
        long start = ticker.read();
        long waitNanos = saturatedNanos(maxWait);
        long maxPoll = Math.max(MIN_POLL_NANOS, Math.min(MAX_POLL_NANOS, ttlMillis * 1_000_000L / 10));
        long poll = MIN_POLL_NANOS;
        while (true) {
            long left = waitNanos - (ticker.read() - start);
            Lease lease = keeper.tryAcquire(
                    name, ttlMillis, Math.min(keeper.storeTimeoutNanos(), Math.max(left, ACQUIRE_GRACE_NANOS)));
            if (lease != null) {
                return lease;
            }
            left = waitNanos - (ticker.read() - start);
            if (left <= 0) {
                throw timeout(name, maxWait);
            }
            long pause = Math.min(left, poll / 2 + ThreadLocalRandom.current().nextLong(poll / 2 + 1));
            try {
                TimeUnit.NANOSECONDS.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FencingException(
                        "fenced: interrupted while waiting for lease '" + name + "'", FencingException.SQLSTATE, e);
            }
            poll = Math.min(maxPoll, poll * 2);
        }
    }

    /**
     * Health check of the lease store: reachable within the store timeout, a primary, its token sequence sane
     * (INCREMENT BY a positive number, CACHE 1, NO CYCLE, not owned, ahead of every token in the table). Creates
     * nothing.
     *
     * @return empty when ready, or a note on what comes at the first grant (the table is created then)
     * @throws SQLException naming what is wrong, as a grant would
     */
    public Optional<String> checkStore() throws SQLException {
        return Optional.ofNullable(keeper.store().check(keeper.storeTimeoutNanos()));
    }

    /** The clock this manager measures deadlines and waits with ({@link Builder#ticker}). */
    public Ticker ticker() {
        return ticker;
    }

    /** The holder name this manager writes into the lease table. */
    public String holder() {
        return keeper.holder();
    }

    /**
     * False for a manager built {@link Builder#withoutRenewal()}: its leases end when their ttl runs out unless
     * their holder {@link Lease#extend extends} them, which is what schedulers' locks with an upper bound
     * (ShedLock's {@code lockAtMostFor}) need.
     */
    public boolean renews() {
        return keeper.renews();
    }

    /** The renewal interval fixed for every lease, or empty for the default, ttl/3 of each lease. */
    public Optional<Duration> renewalInterval() {
        return Optional.ofNullable(renewalInterval);
    }

    /**
     * Stops renewing and releases every lease this manager still holds (their tokens are poisoned first).
     * Leases closed this way do not run their onLost callbacks. Idempotent.
     */
    @Override
    public void close() {
        keeper.close();
    }

    private long ttlMillis(Duration ttl) {
        long ms = LeaseKeeper.checkedTtlMillis(ttl);
        long valid = ms - keeper.marginNanos(ms) / 1_000_000L;
        if (renewalInterval != null && renewalInterval.toMillis() >= valid) {
            throw new IllegalArgumentException("fenced: a lease ttl of " + ms + " ms, less its clock-drift margin ("
                    + (ms - valid) + " ms), is not longer than this manager's renewal interval ("
                    + renewalInterval.toMillis() + " ms): it would expire before its first renewal");
        }
        return ms;
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("fenced: a lease needs a non-empty name");
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    private FencingException timeout(String name, Duration maxWait) {
        dev.fenced.internal.lease.LeaseStore.Holder h =
                keeper.describe(name, Math.min(keeper.storeTimeoutNanos(), ACQUIRE_GRACE_NANOS));
        String by = h == null
                ? ""
                : h.live()
                        ? ": it is held by " + h.holder() + " (token " + h.token() + ") until " + h.expiresAt()
                                + " (database time)"
                        : ": it was just freed (last holder " + h.holder() + ", token " + h.token() + "), try again";
        return new FencingException(
                "fenced: could not acquire lease '" + name + "' within " + maxWait.toMillis() + " ms" + by,
                FencingException.LEASE_TIMEOUT);
    }

    /** Options of a {@link LeaseManager}. */
    public static final class Builder {

        private final @Nullable DataSource dataSource;
        private @Nullable LeaseStore store;
        private @Nullable String holder;
        private @Nullable Duration renewalInterval;
        private boolean renew = true;
        private LeaseTableName table =
                LeaseTableName.parse(Objects.requireNonNull(FencedProperty.LEASE_TABLE.defaultValue()));
        private boolean createTable = Boolean.parseBoolean(FencedProperty.LEASE_CREATE_TABLE.defaultValue());
        private String tokenDomain = Fencing.FENCED_DOMAIN;
        private double clockDrift = DEFAULT_CLOCK_DRIFT;
        private Duration storeTimeout = Duration.ofMillis(DEFAULT_STORE_TIMEOUT_MILLIS);
        private Ticker ticker = Ticker.system();

        private Builder(@Nullable DataSource dataSource, @Nullable LeaseStore store) {
            this.dataSource = dataSource;
            this.store = store;
        }

        /**
         * Keep leases and draw tokens in {@code store} instead of the default, a table in the DataSource's PostgreSQL
         * ({@link PostgresLeaseStore}); {@link #table}, {@link #createTable} and {@link #tokenDomain} then do not apply. Leases of this
         * manager bind their tokens in the store's {@linkplain LeaseStore#tokenDomain() token domain}, so protected
         * tables they write must be of that domain ({@code fenced.tokenDomain}). Every call to the store is bounded
         * by {@link #storeTimeout} whatever the store does. The manager does not close the store.
         */
        public Builder store(LeaseStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The name written into the lease table's holder column; renewals and releases only touch rows with
         * it, so it must be unique per manager. Default {@code host:pid:random}.
         */
        public Builder holder(String holder) {
            if (holder == null || holder.isBlank()) {
                throw new IllegalArgumentException("fenced: a lease holder name must not be blank");
            }
            this.holder = holder;
            return this;
        }

        /** Renew every lease at this interval instead of ttl/3 of each; must be shorter than every ttl used. */
        public Builder renewalInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("fenced: a renewal interval must be positive, got " + interval);
            }
            this.renewalInterval = interval;
            this.renew = true;
            return this;
        }

        /**
         * Never renew: each lease ends when its ttl runs out, whatever its holder is doing (it is then lost,
         * its token poisoned, as with a failed renewal). Only right for work reliably shorter than the ttl;
         * the demo uses it to show the seed's slow runs outliving their lease.
         */
        public Builder withoutRenewal() {
            this.renew = false;
            this.renewalInterval = null;
            return this;
        }

        /**
         * The lease table, schema-qualified if you like ({@code locks.job_lease}); its sequence is
         * {@code <table>_token_seq} in the same schema. Default {@code fenced_lease}
         * ({@link FencedProperty#LEASE_TABLE}).
         *
         * @throws IllegalArgumentException if it is not a valid {@code [schema.]table} name
         */
        public Builder table(String table) {
            this.table = LeaseTableName.parse(table);
            return this;
        }

        /**
         * Create the table and sequence on first use if they are missing (default true,
         * {@link FencedProperty#LEASE_CREATE_TABLE}). Off: run {@code dev/fenced/fenced-lease.sql} from the
         * driver jar with your migrations.
         */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /**
         * The token domain of the lease table's tokens (default {@value Fencing#FENCED_DOMAIN}), as
         * {@link PostgresLeaseStore#create(DataSource, String, boolean, String)}. With the default, the tokens fence
         * the tables of the lease table's own database only: a write of such a token to another database is refused
         * with {@link TokenDomainException}. For one lease over several databases, name a domain (say {@code jobs})
         * and configure {@code fenced.tokenDomain=jobs} in every database the holder writes.
         *
         * @throws IllegalArgumentException if {@code tokenDomain} is not a domain name
         */
        public Builder tokenDomain(String tokenDomain) {
            this.tokenDomain = dev.fenced.internal.context.TokenDomains.check(tokenDomain);
            return this;
        }

        /**
         * How far the database clock may run ahead of this JVM's during one ttl, as a fraction of the ttl
         * (default {@value LeaseManager#DEFAULT_CLOCK_DRIFT}): each lease's own deadline comes that much before
         * its ttl runs out, so that a database clock that runs fast or jumps forward by less than that never
         * hands the lease to another holder while this one still believes in it. 0 to 0.5.
         */
        public Builder clockDrift(double fractionOfTtl) {
            if (!(fractionOfTtl >= 0 && fractionOfTtl <= 0.5)) {
                throw new IllegalArgumentException(
                        "fenced: a clock-drift margin must be between 0 and 0.5 of the ttl," + " got " + fractionOfTtl);
            }
            this.clockDrift = fractionOfTtl;
            return this;
        }

        /**
         * The longest any one lease-store operation may take (default
         * {@value LeaseManager#DEFAULT_STORE_TIMEOUT_MILLIS} ms), whatever the DataSource's own timeouts: a grant
         * or release that gets no answer within it fails with an {@link java.sql.SQLTimeoutException} and its
         * connection is aborted. Renewals get less when their deadline is nearer.
         */
        public Builder storeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.toMillis() < 1) {
                throw new IllegalArgumentException("fenced: a store timeout must be at least 1 ms, got " + timeout);
            }
            this.storeTimeout = timeout;
            return this;
        }

        /**
         * The clock every lease deadline, renewal time and {@link LeaseManager#acquire} wait is measured with
         * (default {@link Ticker#system()}). For tests that move time themselves; the database clock still
         * decides expiry in the store.
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        public LeaseManager build() {
            if (holder == null) {
                holder = HolderIdentity.generate();
            }
            return new LeaseManager(this);
        }
    }
}
