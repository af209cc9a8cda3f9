package dev.fenced.internal.lease;

import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs every operation of the PostgreSQL lease store within a time budget the library sets, whatever the
 * DataSource and its pool are configured to do. A statement timeout is not enough: it needs a cancel request to
 * reach the server, and a peer that silently vanished never answers one; nor is a pool's checkout timeout, which
 * may be unset. So the operation runs as a {@link BoundedCalls bounded call} (borrowing the connection on its
 * worker too), and when its budget runs out the connection is aborted ({@link Connection#abort}: its socket is
 * closed, the worker's blocked read fails at once) and the caller gets an {@link SQLTimeoutException}. A worker
 * stuck before it even has a connection (a pool or a login that never answers) is interrupted and abandoned: it
 * closes whatever it gets later, and the caller is told the DataSource lent no connection.
 */
final class StoreCalls {

    /** Work on a borrowed connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * What to do with an answer that came after its caller had given up, on the connection it came on: an
     * operation whose late effect would otherwise outlive it (a grant nobody holds or renews) undoes it here.
     */
    interface Late<T> {
        void arrived(T result, Connection c) throws SQLException;

        /** The worker is done with the call, whatever happened (answer, error or abort). */
        default void settled() {}
    }

    private final DataSource dataSource;
    private final BoundedCalls calls;
    private final Executor aborts;

    StoreCalls(DataSource dataSource, FencedThreads threads, String threadName) {
        this.dataSource = dataSource;
        this.calls = new BoundedCalls(threads, threadName, dev.fenced.Fencing.FENCED_DOMAIN, StoreCalls::noConnection);
        this.aborts = r -> FencedThreads.start(threadName + "-abort", r);
    }

    /** See {@link BoundedCalls#submit}. */
    Future<?> submit(Runnable work) {
        return calls.submit(work);
    }

    /** How many operations ran out of their budget so far (for tests and messages). */
    int timeouts() {
        return calls.timeouts();
    }

    /**
     * Runs {@code work} on a connection of the store, giving up after {@code budgetNanos}.
     *
     * @throws SQLTimeoutException (SQLState 57014) if the budget ran out; the operation may or may not have
     *         taken effect in the database
     */
    <T> T run(String what, long budgetNanos, Work<T> work) throws SQLException {
        return run(what, budgetNanos, work, null);
    }

    /**
     * As {@link #run(String, long, Work)}, but when the budget runs out while the statement is on its way the
     * connection is not aborted at once: the statement is given as long again to answer, and its answer, if it
     * comes, goes to {@code late} (a grant is released there). Only after that grace is the connection aborted.
     * The caller returns on time either way.
     */
    <T> T run(String what, long budgetNanos, Work<T> work, @Nullable Late<T> late) throws SQLException {
        return calls.run(what, budgetNanos, call -> onConnection(call, work, late), late != null);
    }

    /**
     * Nothing was sent: the DataSource never handed a connection over. Blaming the store would send the reader to
     * the network; the usual cause is a pool with every connection borrowed.
     */
    private static SQLException noConnection(String what, long budgetMillis) {
        return new SQLTransientConnectionException(
                "fenced: no connection from the lease store's DataSource within " + budgetMillis + " ms (" + what
                        + "): is its pool exhausted (every connection borrowed, perhaps by this very thread)"
                        + " or is the server refusing logins? Nothing was sent to the store",
                PgStates.UNABLE_TO_CONNECT);
    }

    /** On the worker: borrows, works, gives back; the connection aborted if the caller gives up meanwhile. */
    private <T> T onConnection(BoundedCalls.Call call, Work<T> work, @Nullable Late<T> late) throws SQLException {
        try {
            Connection c = dataSource.getConnection();
            if (!call.begin(() -> abortQuietly(c, aborts))) {
                c.close(); // nothing ran on it: a healthy connection, back to the pool
                throw new SQLTimeoutException("fenced: abandoned before it had a connection", PgStates.QUERY_CANCELED);
            }
            try {
                T result = work.run(c);
                if (late != null && call.abandoned()) {
                    // The caller was told the operation timed out: it must not take effect unseen.
                    late.arrived(result, c);
                }
                return result;
            } finally {
                if (call.end()) {
                    evict(c);
                }
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // broken anyway
                }
            }
        } finally {
            if (late != null) {
                late.settled();
            }
        }
    }

    /**
     * Makes sure a pool drops an aborted connection instead of lending it to the next caller ("This connection has
     * been closed"). A pool learns a connection is dead when a call on it fails with a connection-exception state
     * (08xxx; HikariCP evicts it then), but only a call made through the pool's proxy: if the worker was between
     * statements when the abort came, or the abort had not closed the socket yet, no call failed, and
     * {@code close()} would hand it back as healthy. So: abort here, synchronously (a no-op when already done),
     * then make one call, which fails with 08003 on the closed connection and tells the pool.
     */
    private static void evict(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException | AbstractMethodError ignored) {
            // not abortable: the call below still finds out whether it is usable
        }
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        } catch (SQLException ignored) {
            // expected: 08003, and the pool has marked the connection
        }
    }

    private static void abortQuietly(Connection c, Executor executor) {
        try {
            c.abort(executor);
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            // A connection that cannot abort is closed instead, on a thread of its own in case that blocks.
            executor.execute(() -> {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // nothing more to do
                }
            });
        }
    }
}
