package dev.fenced.internal.lease;

import dev.fenced.Ticker;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The lease table's SQL. Every operation borrows a connection, runs one autocommit statement and gives
 * the connection back: no advisory locks, no session variables, nothing that outlives the statement, so
 * PgBouncer in transaction pooling mode and any connection pool are fine. Whether a lease has expired is
 * decided by the database's clock ({@code now()}), never by ours. Every operation is bounded in time by
 * {@link StoreCalls}, whatever the DataSource does.
 */
public final class LeaseStore implements StoreAccess {

    /** A serialization failure or deadlock (REPEATABLE READ or SERIALIZABLE pools): the statement is retried. */
    private static final Set<String> RETRIED = Set.of(PgStates.SERIALIZATION_FAILURE, PgStates.DEADLOCK_DETECTED);

    private static final int MAX_ATTEMPTS = 8;

    /** The longest pause between two attempts of a statement that failed to serialize. */
    private static final long MAX_BACKOFF_MILLIS = 64;

    private final LeaseTableName table;
    private final boolean createTable;
    private final String tokenDomain;
    private final StoreCalls calls;
    /**
     * The database whose sequence draws the tokens, read with the schema check at the first grant; stays null for a
     * named domain, which is meant to be written in several databases.
     */
    private volatile @Nullable String tokenOrigin;
    /** The statements for the table with its schema, fixed at the store's first call; null before. */
    private volatile @Nullable Sql sql;

    private volatile boolean schemaChecked;
    /** Grants that timed out whose late answer is still to be settled, by lease name. */
    private final java.util.Map<String, java.util.concurrent.CompletableFuture<Void>> lateGrants =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** A store with worker threads of its own, which end when idle (for tools and tests). */
    public LeaseStore(DataSource dataSource, LeaseTableName table, boolean createTable, String threadSuffix) {
        this(dataSource, table, createTable, dev.fenced.Fencing.FENCED_DOMAIN, threadSuffix);
    }

    /** As above, its tokens of {@code tokenDomain}. */
    public LeaseStore(
            DataSource dataSource, LeaseTableName table, boolean createTable, String tokenDomain, String threadSuffix) {
        this(dataSource, table, createTable, tokenDomain, new FencedThreads(), threadSuffix);
    }

    /** A store whose worker threads are made by {@code threads}, and stopped when they are closed. */
    LeaseStore(
            DataSource dataSource,
            LeaseTableName table,
            boolean createTable,
            String tokenDomain,
            FencedThreads threads,
            String threadSuffix) {
        this.table = table;
        this.createTable = createTable;
        this.tokenDomain = dev.fenced.internal.context.TokenDomains.check(tokenDomain);
        this.calls = new StoreCalls(dataSource, threads, "fenced-lease-io-" + threadSuffix);
    }

    /**
     * The lease table's statements, every name in them schema-qualified: {@code table} is the table as resolved at
     * set-up ({@link LeaseSchema#qualified}), so no session's search_path decides which table or sequence a statement
     * reaches.
     */
    private record Sql(
            LeaseTableName table, String grant, String renew, String release, String releaseHolding, String describe) {

        static Sql of(LeaseTableName table) {
            String t = table.table();
            // The next token, refused unless it exceeds every token in the table: a sequence reset after the first
            // use's check (LeaseSchema) would otherwise grant tokens again, and a newer holder a lower token than a
            // stale one, whose writes would then win. max(token) reads the last entry of the token index
            // (fenced-lease.sql), whatever the table's size, as long as the plan is made for the table as it is now:
            // the grant is planned on every execution (CustomPlans), since a plan cached while the table was small
            // scans it. Without the index (an older table, see LeaseSchema), one scan of the table per grant.
            String token =
                    Tokens.aboveSql(Tokens.nextTokenSql(table), "(SELECT pg_catalog.max(p.token) FROM " + t + " AS p)");
            // Grant and takeover in one statement. A new name inserts; an existing row is taken over only if
            // it expired or was released, by the database clock. The takeover draws its token in the SET list,
            // that is after PostgreSQL has locked the row, so grants of one name get tokens in the order they
            // happen. The NOT EXISTS only spares the sequence while a lease is visibly held (a waiter polling
            // would otherwise burn a value per attempt); ON CONFLICT alone decides who wins. The grant is
            // durable before it is acknowledged (Durability), or a crash could hand its token out again.
            // Every operator and function is named with pg_catalog (issue 24): a session whose search_path puts a
            // schema with its own <= or + first must not change who gets a lease. OPERATOR(...) binds all alike, left
            // to right, hence the parentheses.
            String grant = "INSERT INTO " + t + " AS l (name, holder, token, granted_at, renewed_at, expires_at)"
                    + " SELECT ?, ?, " + token
                    + ", pg_catalog.now(), pg_catalog.now(), pg_catalog.now() OPERATOR(pg_catalog.+)"
                    + " (?::bigint OPERATOR(pg_catalog.*) interval '1 millisecond')"
                    + " WHERE " + Durability.COMMIT_DURABLY + " AND NOT EXISTS (SELECT 1 FROM " + t
                    + " WHERE name OPERATOR(pg_catalog.=) ? AND expires_at OPERATOR(pg_catalog.>) pg_catalog.now())"
                    + " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = " + token + ","
                    + " granted_at = pg_catalog.now(), renewed_at = pg_catalog.now(), expires_at = excluded.expires_at"
                    + " WHERE l.expires_at OPERATOR(pg_catalog.<=) pg_catalog.now()"
                    + " RETURNING l.token";
            // Every lease a manager holds, renewed by one statement, planned for its arrays on every execution
            // (CustomPlans). A row is renewed only while it is still this holder's grant (token) and has not
            // expired by the database clock: an expired lease may already be another holder's to take, so it is
            // never revived. A row someone else has locked (a waiter's takeover attempt, an idle
            // SELECT ... FOR UPDATE) is skipped, not waited for, and reported as such: the other leases are renewed
            // on time and the locked one is retried. The answer has one row per lease asked about:
            // (token, renewed, still ours by the statement's snapshot).
            String renew = "WITH r AS (SELECT * FROM ROWS FROM (pg_catalog.unnest(?::pg_catalog.text[]),"
                    + " pg_catalog.unnest(?::bigint[]), pg_catalog.unnest(?::bigint[])) AS r(name, token, ttl_ms)),"
                    + " mine AS (SELECT l.name, l.token, r.ttl_ms FROM " + t
                    + " AS l JOIN r ON l.name OPERATOR(pg_catalog.=) r.name AND l.token OPERATOR(pg_catalog.=) r.token"
                    + " WHERE l.holder OPERATOR(pg_catalog.=) ? AND l.expires_at OPERATOR(pg_catalog.>) pg_catalog.now()"
                    + " FOR UPDATE OF l SKIP LOCKED),"
                    + " done AS (UPDATE " + t
                    + " AS l SET renewed_at = pg_catalog.now(), expires_at = pg_catalog.now() OPERATOR(pg_catalog.+) (m.ttl_ms"
                    + " OPERATOR(pg_catalog.*) interval '1 millisecond')"
                    + " FROM mine AS m WHERE l.name OPERATOR(pg_catalog.=) m.name AND l.token OPERATOR(pg_catalog.=) m.token"
                    + " RETURNING l.token),"
                    + " durable AS (SELECT " + Durability.COMMIT_DURABLY + ")" // once per statement, not per row
                    + " SELECT r.token, d.token IS NOT NULL, o.name IS NOT NULL"
                    + " FROM durable, r LEFT JOIN done AS d ON d.token OPERATOR(pg_catalog.=) r.token"
                    + " LEFT JOIN " + t
                    + " AS o ON o.name OPERATOR(pg_catalog.=) r.name AND o.token OPERATOR(pg_catalog.=) r.token AND o.holder"
                    + " OPERATOR(pg_catalog.=) ? AND o.expires_at OPERATOR(pg_catalog.>) pg_catalog.now()";
            // Released rows stay, marked '-infinity': the next grant of the name then goes through the locked
            // takeover path above instead of a fresh insert.
            String release = "UPDATE " + t + " AS l SET expires_at = '-infinity', renewed_at = pg_catalog.now()"
                    + " FROM ROWS FROM (pg_catalog.unnest(?::pg_catalog.text[]), pg_catalog.unnest(?::bigint[])) AS r(name, token)"
                    + " WHERE l.name OPERATOR(pg_catalog.=) r.name AND l.token OPERATOR(pg_catalog.=) r.token AND l.holder"
                    + " OPERATOR(pg_catalog.=) ?";
            // A release that keeps the lease taken until a minimum time has passed since its grant or last
            // renewal (ShedLock's lockAtLeastFor), by the database clock; never later than it would have expired.
            String releaseHolding = "UPDATE " + t + " AS l SET expires_at = CASE"
                    + " WHEN l.renewed_at OPERATOR(pg_catalog.+) (?::bigint OPERATOR(pg_catalog.*) interval '1 millisecond')"
                    + " OPERATOR(pg_catalog.>) pg_catalog.now()"
                    + " THEN LEAST(l.expires_at, l.renewed_at OPERATOR(pg_catalog.+) (?::bigint OPERATOR(pg_catalog.*) interval"
                    + " '1 millisecond'))"
                    + " ELSE '-infinity' END"
                    + " WHERE l.name OPERATOR(pg_catalog.=) ? AND l.token OPERATOR(pg_catalog.=) ? AND l.holder"
                    + " OPERATOR(pg_catalog.=) ?";
            String describe =
                    "SELECT holder, token, expires_at, expires_at OPERATOR(pg_catalog.>) pg_catalog.now() FROM " + t
                            + " WHERE name OPERATOR(pg_catalog.=) ?";
            return new Sql(table, grant, renew, release, releaseHolding, describe);
        }
    }

    @Override
    public String tokenDomain() {
        return tokenDomain;
    }

    @Override
    public @Nullable String tokenOrigin() {
        return tokenOrigin;
    }

    public LeaseTableName table() {
        return table;
    }

    /** A granted lease: its token and when (System.nanoTime) the grant request was sent. */
    public record Grant(long token, long sentAtNanos) {}

    /**
     * The outcome of one renewal statement: the tokens renewed, those whose rows someone else had locked (still
     * ours, to be retried), and when the request was sent. A token in neither set is no longer ours.
     */
    public record Renewal(Set<Long> renewed, Set<Long> locked, long sentAtNanos) {}

    /** Who holds a lease right now, by the database clock; for error messages. */
    public record Holder(String holder, long token, String expiresAt, boolean live) {}

    /**
     * Grants {@code name} to {@code holder} if it is free, expired or released.
     *
     * @param sentClock the clock the grant's send time is read from
     * @return the grant, or null if someone else holds it
     */
    @Override
    public @Nullable Grant grant(String name, String holder, long ttlMillis, long budgetNanos, Ticker sentClock)
            throws SQLException {
        long budget = awaitLateGrant(name, budgetNanos);
        java.util.concurrent.CompletableFuture<Void> settled = new java.util.concurrent.CompletableFuture<>();
        // "Busy" is an empty answer: the calls' type parameters are non-null, as NullAway reads them.
        StoreCalls.Late<Optional<Grant>> late = new StoreCalls.Late<>() {
            @Override
            public void arrived(Optional<Grant> grant, Connection c) throws SQLException {
                if (grant.isPresent()) {
                    releaseLate(c, name, holder, grant.get().token());
                }
            }

            @Override
            public void settled() {
                settled.complete(null);
            }
        };
        try {
            Optional<Grant> granted = calls.run(
                    "grant lease '" + name + "'",
                    budget,
                    c -> {
                        Sql set = ensureSchema(c, name);
                        return retrying(
                                c,
                                () -> {
                                    try (PreparedStatement ps = c.prepareStatement(set.grant())) {
                                        CustomPlans.require(ps);
                                        ps.setString(1, name);
                                        ps.setString(2, holder);
                                        ps.setLong(3, ttlMillis);
                                        ps.setString(4, name);
                                        // The holder's deadline counts from here: the database's now() can only be
                                        // later.
                                        long sentAt = sentClock.read();
                                        try (ResultSet rs = ps.executeQuery()) {
                                            return rs.next()
                                                    ? Optional.of(new Grant(rs.getLong(1), sentAt))
                                                    : Optional.<Grant>empty();
                                        }
                                    }
                                },
                                e -> StoreErrors.onGrant(c, set.table(), name, e),
                                BUSY);
                    },
                    late);
            return granted.orElse(null);
        } catch (SQLTimeoutException e) {
            // The grant may still commit on the server; its worker releases it when the answer comes. Until then
            // the next grant of the name waits for that (within its own budget) instead of finding it taken.
            lateGrants.put(name, settled);
            settled.whenComplete((v, t) -> lateGrants.remove(name, settled));
            throw e;
        }
    }

    /**
     * Waits, at most half of {@code budgetNanos}, for a grant of {@code name} that timed out earlier to be settled
     * (its late answer released, or its connection aborted); returns the budget left, at least half. Half: a late
     * grant that is still silent must not leave this grant no time of its own.
     */
    private long awaitLateGrant(String name, long budgetNanos) throws SQLException {
        java.util.concurrent.CompletableFuture<Void> pending = lateGrants.get(name);
        if (pending == null) {
            return budgetNanos;
        }
        long start = System.nanoTime();
        try {
            pending.get(budgetNanos / 2, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // still unsettled: try anyway, the grant answers busy if the late one holds the name
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("fenced: interrupted while waiting for an earlier grant of '" + name + "'", e);
        }
        return Math.max(budgetNanos / 2, budgetNanos - (System.nanoTime() - start));
    }

    /** Releases a grant whose caller had already been told it timed out: nobody would hold or renew it. */
    private void releaseLate(Connection c, String name, String holder, long token) throws SQLException {
        String releaseHoldingSql = sql(c).releaseHolding();
        retrying(
                c,
                () -> {
                    try (PreparedStatement ps = c.prepareStatement(releaseHoldingSql)) {
                        ps.setLong(1, 0);
                        ps.setLong(2, 0);
                        ps.setString(3, name);
                        ps.setLong(4, token);
                        ps.setString(5, holder);
                        return ps.executeUpdate() > 0;
                    }
                },
                e -> e,
                null);
    }

    /** Renews, in one statement, every listed lease that is still this holder's, not expired and not locked. */
    @Override
    public Renewal renew(
            String holder, String[] names, long[] tokens, long[] ttlMillis, long budgetNanos, Ticker sentClock)
            throws SQLException {
        return calls.run(
                "renew " + names.length + " leases",
                budgetNanos,
                c -> retrying(
                        c,
                        () -> {
                            try (PreparedStatement ps = c.prepareStatement(sql(c).renew())) {
                                CustomPlans.require(ps);
                                ps.setArray(1, c.createArrayOf("text", names));
                                ps.setArray(2, c.createArrayOf("int8", boxed(tokens)));
                                ps.setArray(3, c.createArrayOf("int8", boxed(ttlMillis)));
                                ps.setString(4, holder);
                                ps.setString(5, holder);
                                long sentAt = sentClock.read();
                                Set<Long> renewed = new HashSet<>(names.length * 2);
                                Set<Long> locked = new HashSet<>();
                                try (ResultSet rs = ps.executeQuery()) {
                                    while (rs.next()) {
                                        if (rs.getBoolean(2)) {
                                            renewed.add(rs.getLong(1));
                                        } else if (rs.getBoolean(3)) {
                                            locked.add(rs.getLong(1));
                                        }
                                    }
                                }
                                return new Renewal(renewed, locked, sentAt);
                            }
                        },
                        e -> e,
                        null));
    }

    /** Releases the listed leases that are still this holder's grants; returns how many were. */
    @Override
    public int release(String holder, String[] names, long[] tokens, long budgetNanos) throws SQLException {
        return calls.run(
                "release " + names.length + " leases",
                budgetNanos,
                c -> retrying(
                        c,
                        () -> {
                            try (PreparedStatement ps = c.prepareStatement(sql(c).release())) {
                                CustomPlans.require(ps);
                                ps.setArray(1, c.createArrayOf("text", names));
                                ps.setArray(2, c.createArrayOf("int8", boxed(tokens)));
                                ps.setString(3, holder);
                                return ps.executeUpdate();
                            }
                        },
                        e -> e,
                        null));
    }

    /**
     * Releases one lease that is still this holder's grant, but leaves it taken until {@code holdMillis} after
     * its grant or last renewal (database clock), or at once if that time has passed; returns whether it was ours.
     */
    @Override
    public boolean releaseHolding(String holder, String name, long token, long holdMillis, long budgetNanos)
            throws SQLException {
        return calls.run(
                "release lease '" + name + "'",
                budgetNanos,
                c -> retrying(
                        c,
                        () -> {
                            try (PreparedStatement ps = c.prepareStatement(sql(c).releaseHolding())) {
                                ps.setLong(1, holdMillis);
                                ps.setLong(2, holdMillis);
                                ps.setString(3, name);
                                ps.setLong(4, token);
                                ps.setString(5, holder);
                                return ps.executeUpdate() > 0;
                            }
                        },
                        e -> e,
                        null));
    }

    /** The row of lease {@code name}, or null if it was never granted. */
    @Override
    public @Nullable Holder describe(String name, long budgetNanos) throws SQLException {
        Optional<Holder> row = calls.run(
                "describe lease '" + name + "'",
                budgetNanos,
                c -> retrying(
                        c,
                        () -> {
                            try (PreparedStatement ps = c.prepareStatement(sql(c).describe())) {
                                ps.setString(1, name);
                                try (ResultSet rs = ps.executeQuery()) {
                                    return rs.next()
                                            ? Optional.of(new Holder(
                                                    rs.getString(1), rs.getLong(2), rs.getString(3), rs.getBoolean(4)))
                                            : Optional.<Holder>empty();
                                }
                            }
                        },
                        e -> e,
                        null));
        return row.orElse(null);
    }

    /**
     * Reaches the store and makes the checks of the first grant (a primary, the table and a trustworthy sequence)
     * without creating anything; null when ready, else what is still to come. Throws what a grant would.
     */
    @Override
    public @Nullable String check(long budgetNanos) throws SQLException {
        Optional<String> note = calls.run(
                "check the lease store",
                budgetNanos,
                c -> Optional.ofNullable(LeaseSchema.check(c, sql(c).table(), createTable)));
        return note.orElse(null);
    }

    /** How many store operations ran out of their time budget. */
    @Override
    public int timeouts() {
        return calls.timeouts();
    }

    /**
     * Runs {@code work} (which calls this store and waits for it) on one of the store's worker threads, not the
     * caller's; cancelling the returned future interrupts the wait, which gives the statement up.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the store is shut down or all its workers are stuck
     */
    @Override
    public java.util.concurrent.Future<?> inBackground(Runnable work) {
        return calls.submit(work);
    }

    private interface Statement<T> {
        T run() throws SQLException;
    }

    private interface Explain {
        SQLException explain(SQLException e);
    }

    /**
     * Runs one statement as its own transaction (committing it when the pool hands out connections with
     * autocommit off), again after a serialization failure or deadlock: under REPEATABLE READ or SERIALIZABLE a
     * grant that raced another one fails with 40001 where READ COMMITTED would have answered; the retry takes a
     * new snapshot and gives the answer ("busy", or the grant). Retries back off with jitter, so racers that
     * failed together do not collide again in lockstep; when every attempt failed that way, an operation with a
     * {@code contended} answer gives it (a grant: "busy", which is what the race means), any other throws.
     */
    private static <T> T retrying(
            Connection c, Statement<T> statement, Explain explain, @Nullable Contended<T> contended)
            throws SQLException {
        boolean auto = c.getAutoCommit();
        for (int attempt = 1; ; attempt++) {
            try {
                T result = statement.run();
                if (!auto) {
                    c.commit();
                }
                return result;
            } catch (SQLException e) {
                rollbackQuietly(c, auto);
                if (!RETRIED.contains(e.getSQLState())) {
                    throw explain.explain(e);
                }
                if (attempt >= MAX_ATTEMPTS) {
                    if (contended != null) {
                        return contended.answer();
                    }
                    throw explain.explain(e);
                }
                backOff(attempt);
            }
        }
    }

    /** The answer of an operation that lost every race for its row. */
    private interface Contended<T> {
        T answer();
    }

    /** A grant that lost every race: someone else is taking the name, so it is busy. */
    private static final Contended<Optional<Grant>> BUSY = Optional::empty;

    /**
     * Sleeps a random time up to {@code 2^attempt} ms (at most {@value #MAX_BACKOFF_MILLIS} ms): full jitter. The
     * operation's time budget still bounds the whole, and an interrupt (the budget ran out) ends the wait.
     */
    private static void backOff(int attempt) throws SQLException {
        long cap = Math.min(MAX_BACKOFF_MILLIS, 1L << Math.min(attempt, 20));
        try {
            Thread.sleep(1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(cap));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("fenced: interrupted while backing off a serialization failure", e);
        }
    }

    /**
     * Checked once per store, on the first grant: the table and sequence, as resolved by {@link #sql}, are checked
     * (created if allowed). After that a missing table or a standby is reported by the grant statement itself (see
     * {@link StoreErrors#onGrant}), at no extra round trip. A failed check resolves the name again at the next call:
     * the table may be made meanwhile in another schema of the search_path.
     */
    private Sql ensureSchema(Connection c, String lease) throws SQLException {
        Sql set = sql(c);
        if (schemaChecked) {
            return set;
        }
        synchronized (this) {
            if (!schemaChecked) {
                boolean auto = c.getAutoCommit();
                try {
                    LeaseSchema.ensure(c, set.table(), createTable, lease);
                    if (dev.fenced.Fencing.FENCED_DOMAIN.equals(tokenDomain)) {
                        tokenOrigin = dev.fenced.internal.pg.DatabaseOrigin.read(c);
                    }
                    if (!auto) {
                        c.commit();
                    }
                } catch (SQLException e) {
                    rollbackQuietly(c, auto);
                    sql = null;
                    throw e;
                }
                schemaChecked = true;
            }
        }
        return set;
    }

    /**
     * The statements, the table's schema resolved on {@code c} at the store's first call ({@link
     * LeaseSchema#qualified}) and kept: no later connection's search_path changes which table or sequence they reach.
     */
    private Sql sql(Connection c) throws SQLException {
        Sql fixed = sql;
        if (fixed == null) {
            fixed = Sql.of(LeaseSchema.qualified(c, table));
            sql = fixed;
        }
        return fixed;
    }

    private static void rollbackQuietly(Connection c, boolean auto) {
        if (!auto) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is broken; the pool will find out
            }
        }
    }

    private static Long[] boxed(long[] values) {
        Long[] out = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i];
        }
        return out;
    }
}
