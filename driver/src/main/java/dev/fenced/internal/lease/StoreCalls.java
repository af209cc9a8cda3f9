package dev.fenced.internal.lease;

import dev.fenced.FencingException;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Runs every lease-store operation within a time budget the library sets, whatever the DataSource and its
 * pool are configured to do. A statement timeout is not enough: it needs a cancel request to reach the
 * server, and a peer that silently vanished never answers one; nor is a pool's checkout timeout, which may
 * be unset. So the operation runs on a worker thread (borrowing the connection there too) and the caller
 * waits at most its budget; when the budget runs out the connection is aborted
 * ({@link Connection#abort}: its socket is closed, the worker's blocked read fails at once) and the caller
 * gets an {@link SQLTimeoutException}. A worker stuck before it even has a connection (a pool or a login that
 * never answers) is abandoned: it closes whatever it gets later, and the caller is long gone.
 *
 * <p>The caller being free is what matters: the renewer's thread is never stuck, so renewal resumes as
 * soon as the store answers again, and {@code acquire} and {@code close} return on time.
 */
final class StoreCalls {

    /** Work on a borrowed connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** More workers than this stuck at once means something is badly wrong; refuse instead of piling up. */
    static final int MAX_WORKERS = 256;

    private final DataSource dataSource;
    private final ThreadPoolExecutor workers;
    private final Executor aborts;
    private final AtomicInteger timeouts = new AtomicInteger();

    StoreCalls(DataSource dataSource, FencedThreads threads, String threadName) {
        this.dataSource = dataSource;
        this.workers = threads.pool(threadName, MAX_WORKERS, 30);
        this.aborts = r -> FencedThreads.start(threadName + "-abort", r);
    }

    /**
     * Runs {@code work} on a worker: the renewer's round, which waits there for its statement (run on another
     * worker by {@link #run}) so that neither the renewer's timer nor a thread of its own is ever stuck on it.
     */
    Future<?> submit(Runnable work) {
        return workers.submit(work);
    }

    /** How many operations ran out of their budget so far (for tests and messages). */
    int timeouts() {
        return timeouts.get();
    }

    /**
     * Runs {@code work} on a connection of the store, giving up after {@code budgetNanos}.
     *
     * @throws SQLTimeoutException (SQLState 57014) if the budget ran out; the operation may or may not have
     *         taken effect in the database
     */
    <T> T run(String what, long budgetNanos, Work<T> work) throws SQLException {
        Call<T> call = new Call<>(work);
        Future<T> task;
        try {
            // Submitted as a Callable: the pool builds its task with nothing bound (FencedThreads), where a
            // FutureTask built here would carry the caller's token to the worker under the agent.
            task = workers.submit(call);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new FencingException(
                    "fenced: cannot " + what + ": "
                            + (workers.isShutdown()
                                    ? "its LeaseManager is closed"
                                    : MAX_WORKERS
                                            + " earlier lease-store operations are still stuck on connections that never answered"),
                    FencingException.LEASE_STORE,
                    e);
        }
        try {
            return await(task, budgetNanos);
        } catch (TimeoutException e) {
            boolean hadConnection = call.abandon(aborts);
            task.cancel(true);
            timeouts.incrementAndGet();
            if (!hadConnection) {
                // Nothing was sent: the DataSource never handed a connection over. Blaming the store would send
                // the reader to the network; the usual cause is a pool with every connection borrowed.
                throw new SQLTransientConnectionException(
                        "fenced: no connection from the lease store's DataSource within "
                                + TimeUnit.NANOSECONDS.toMillis(budgetNanos) + " ms (" + what
                                + "): is its pool exhausted (every connection borrowed, perhaps by this very thread)"
                                + " or is the server refusing logins? Nothing was sent to the store",
                        PgStates.UNABLE_TO_CONNECT);
            }
            throw new SQLTimeoutException(
                    "fenced: the lease store did not answer within " + TimeUnit.NANOSECONDS.toMillis(budgetNanos)
                            + " ms (" + what + "); its connection was aborted",
                    PgStates.QUERY_CANCELED);
        } catch (InterruptedException e) {
            call.abandon(aborts);
            task.cancel(true);
            Thread.currentThread().interrupt();
            throw new FencingException(
                    "fenced: interrupted while waiting for the lease store (" + what + ")",
                    FencingException.SQLSTATE,
                    e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException s) {
                throw s;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new SQLException("fenced: " + what + " failed: " + cause, cause);
        }
    }

    private static <T> T await(Future<T> task, long budgetNanos)
            throws InterruptedException, ExecutionException, TimeoutException {
        return task.get(Math.max(1, budgetNanos), TimeUnit.NANOSECONDS);
    }

    /** One operation: borrows, works, gives back; abortable from the waiting thread. */
    private final class Call<T> implements java.util.concurrent.Callable<T> {
        private final Work<T> work;
        private Connection connection; // guarded by this
        private boolean abandoned; // guarded by this

        Call(Work<T> work) {
            this.work = work;
        }

        @Override
        public T call() throws SQLException {
            Connection c = dataSource.getConnection();
            synchronized (this) {
                if (abandoned) {
                    c.close(); // nothing ran on it: a healthy connection, back to the pool
                    throw new SQLTimeoutException(
                            "fenced: abandoned before it had a connection", PgStates.QUERY_CANCELED);
                }
                connection = c;
            }
            try {
                return work.run(c);
            } finally {
                boolean aborted;
                synchronized (this) {
                    connection = null;
                    aborted = abandoned;
                }
                if (aborted) {
                    evict(c);
                }
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // broken anyway
                }
            }
        }

        /** Gives the call up, aborting its connection if it has one; returns whether it had one. */
        boolean abandon(Executor executor) {
            Connection c;
            synchronized (this) {
                abandoned = true;
                c = connection;
            }
            if (c != null) {
                abortQuietly(c, executor);
            }
            return c != null;
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
