package dev.fenced;

import dev.fenced.internal.jdbc.OpenTransactions;
import dev.fenced.internal.lock.LockedConnection;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The seed's first level: when all the work happens in one database and is short, a lock held by one
 * transaction is enough, and no lease or token is needed. {@code PlainLock.run(dataSource, "nightly-totals",
 * lockTimeout, idleTimeout, c -> ...)} opens a transaction, takes {@code pg_advisory_xact_lock} on the name
 * (hashed to a bigint with {@code hashtextextended}; two names that collide only wait for each other), runs
 * the work on that connection and commits. The lock ends with the transaction, whatever happens to the client.
 *
 * <ul>
 * <li>A waiter waits at most {@code lockTimeout} ({@code lock_timeout}, set locally for the lock statement
 *     only) and then gets {@link FencingException} {@value FencingException#LOCK_TIMEOUT} naming the lock.</li>
 * <li>The holder's transaction may sit idle between statements at most {@code idleTimeout}
 *     ({@code idle_in_transaction_session_timeout}, set locally): a holder that stalls (a pause, a slow call to
 *     something else) has its session ended by the server, its lock released and its work rolled back, and
 *     gets {@link FencingException} {@value FencingException#LOCK_LOST}. Nothing it wrote is committed: this
 *     is what makes a plain lock safe against a paused holder, as long as every write goes through
 *     {@code connection}.</li>
 * <li>The work may not end the transaction, which would release the lock while it goes on: {@code commit()},
 *     {@code rollback()}, {@code setAutoCommit(true)}, {@code close()} and {@code COMMIT}/{@code ROLLBACK}/
 *     {@code END}/{@code ABORT} in SQL on the connection it is given are refused with
 *     {@value FencingException#LOCK_LOST}; a transaction ended around that connection ({@code unwrap}) is found
 *     when the work returns, and what ran after it is rolled back, with the same error.</li>
 * </ul>
 * Everything is transaction-scoped ({@code SET LOCAL}, an xact lock), so it is safe behind PgBouncer in
 * transaction pooling mode. Writes made on other connections, or to anything but this database, are not
 * covered: for those, take a lease (and, for data, a token).
 */
public final class PlainLock {

    private PlainLock() {}

    /** The unit of work, run on the locked transaction's connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws Exception;
    }

    /**
     * Runs {@code work} under the lock {@code name} in one transaction and returns its value.
     *
     * @throws FencingException {@value FencingException#LOCK_TIMEOUT} when the lock is not had within
     *                          {@code lockTimeout}; {@value FencingException#LOCK_LOST} when the server ended the
     *                          transaction (idle longer than {@code idleTimeout}): nothing was committed
     * @throws IllegalArgumentException for an empty name or a duration that is not positive
     */
    public static <T> T run(
            DataSource dataSource, String name, Duration lockTimeout, Duration idleTimeout, Work<T> work)
            throws Exception {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(work, "work");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("PlainLock.run needs a non-empty lock name");
        }
        String lockMs = millis("lockTimeout", lockTimeout);
        String idleMs = millis("idleTimeout", idleTimeout);
        try (Connection c = dataSource.getConnection()) {
            if (OpenTransactions.isOpen(c)) {
                // its commit (or rollback) would end the caller's transaction along with the lock's
                throw new FencingException(
                        "fenced: plain lock '" + name + "' needs a connection of its own, but the"
                                + " data source handed out one in an open transaction (a caller's, such as Spring's"
                                + " TransactionAwareDataSourceProxy inside @Transactional): committing the lock's transaction"
                                + " would commit that one early. Nothing was run and the transaction was left alone; give"
                                + " PlainLock the pool itself",
                        PgStates.ACTIVE_SQL_TRANSACTION);
            }
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            boolean locked = false;
            try {
                String transaction = lock(c, name, lockMs, idleMs, lockTimeout);
                locked = true;
                T result = work.run(LockedConnection.guard(c, name));
                if (!transaction.equals(transaction(c))) {
                    // the work reached around the guard (unwrap) and ended the transaction: what it did since ran
                    // without the lock and is rolled back
                    throw LockedConnection.refused(
                            name,
                            "it was ended through a path around the connection given"
                                    + " to the work; what ran after that is rolled back");
                }
                c.commit();
                return result;
            } catch (Exception | Error e) {
                rollbackQuietly(c);
                if (locked && ended(c, e)) {
                    throw new FencingException(
                            "fenced: plain lock '" + name + "' lost: the transaction was idle longer"
                                    + " than " + idleTimeout.toMillis()
                                    + " ms (idle_in_transaction_session_timeout) and the"
                                    + " server ended it; nothing it did was committed",
                            FencingException.LOCK_LOST,
                            e instanceof SQLException ? e : null);
                }
                throw e;
            } finally {
                if (!c.isClosed()) {
                    try {
                        c.setAutoCommit(autoCommit);
                    } catch (SQLException ignored) {
                        // a broken connection: the pool finds out itself
                    }
                }
            }
        }
    }

    /** The lock's transaction: this backend's virtual transaction id, unique per transaction of the session. */
    private static final String TRANSACTION = "(SELECT l.virtualxid FROM pg_catalog.pg_locks l"
            + " WHERE l.locktype OPERATOR(pg_catalog.=) 'virtualxid' AND l.pid OPERATOR(pg_catalog.=)"
            + " pg_catalog.pg_backend_pid() LIMIT 1)";

    /** Takes the lock; returns its transaction's identity. */
    private static String lock(Connection c, String name, String lockMs, String idleMs, Duration lockTimeout)
            throws SQLException {
        String previous;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.current_setting('lock_timeout'),"
                + " pg_catalog.set_config('lock_timeout', ?, true),"
                + " pg_catalog.set_config('idle_in_transaction_session_timeout', ?, true)")) {
            ps.setString(1, lockMs);
            ps.setString(2, idleMs);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                previous = rs.getString(1);
            }
        }
        // the waiter's timeout is for the lock only: the work's own statements keep the session's lock_timeout
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_advisory_xact_lock("
                + "pg_catalog.hashtextextended(?, 0)), pg_catalog.set_config('lock_timeout', ?, true), "
                + TRANSACTION)) {
            ps.setString(1, name);
            ps.setString(2, previous);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return String.valueOf(rs.getString(3));
            }
        } catch (SQLException e) {
            if (PgStates.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw new FencingException(
                        "fenced: plain lock '" + name + "' is held by another transaction; gave up" + " after "
                                + lockTimeout.toMillis() + " ms (lock_timeout)",
                        FencingException.LOCK_TIMEOUT,
                        e);
            }
            throw e;
        }
    }

    private static String transaction(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + TRANSACTION);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return String.valueOf(rs.getString(1));
        }
    }

    /** True when the failure is the server ending the session: the idle timeout, or the connection gone. */
    private static boolean ended(Connection c, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && PgStates.IDLE_IN_TRANSACTION_SESSION_TIMEOUT.equals(s.getSQLState())) {
                return true;
            }
        }
        try {
            return c.isClosed() || !c.isValid(2);
        } catch (SQLException ex) {
            return true;
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            if (!c.isClosed()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the session is gone: the server rolled back already
        }
    }

    private static String millis(String what, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("PlainLock.run: " + what + " must be a positive duration, got " + d);
        }
        return Math.max(1, d.toMillis()) + "ms";
    }
}
