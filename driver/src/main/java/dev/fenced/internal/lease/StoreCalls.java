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

    /**
     * What to do with an answer that came after its caller had given up, on the connection it came on: an
     * operation whose late effect would otherwise outlive it (a grant nobody holds or renews) undoes it here.
     */
    interface Late<T> {
        void arrived(T result, Connection c) throws SQLException;

        /** The worker is done with the call, whatever happened (answer, error or abort). */
        default void settled() {}
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
        return run(what, budgetNanos, work, null);
    }

    /**
     * As {@link #run(String, long, Work)}, but when the budget runs out while the statement is on its way the
     * connection is not aborted at once: the statement is given as long again to answer, and its answer, if it
     * comes, goes to {@code late} (a grant is released there). Only after that grace is the connection aborted.
     * The caller returns on time either way.
     */
    <T> T run(String what, long budgetNanos, Work<T> work, Late<T> late) throws SQLException {
        Call<T> call = new Call<>(work, late, budgetNanos);
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
            task.cancel(late == null); // a late-answer call keeps its worker uninterrupted to the end of its grace
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
                            + " ms (" + what + "); "
                            + (late == null
                                    ? "its connection was aborted"
                                    : "a late answer is undone when it arrives, or the connection aborted after as long again"),
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
        private final Late<T> late;
        private final long graceNanos;
        private final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        private Connection connection; // guarded by this
        private boolean abandoned; // guarded by this: the caller has given up
        private boolean aborted; // guarded by this: the connection was aborted

        Call(Work<T> work, Late<T> late, long graceNanos) {
            this.work = work;
            this.late = late;
            this.graceNanos = graceNanos;
        }

        @Override
        public T call() throws SQLException {
            try {
                return borrowAndRun();
            } finally {
                done.countDown();
                if (late != null) {
                    late.settled();
                }
            }
        }

        private T borrowAndRun() throws SQLException {
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
                T result = work.run(c);
                if (late != null && isAbandoned()) {
                    // The caller was told the operation timed out: it must not take effect unseen.
                    late.arrived(result, c);
                }
                return result;
            } finally {
                boolean evict;
                synchronized (this) {
                    connection = null;
                    evict = aborted;
                }
                if (evict) {
                    evict(c);
                }
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // broken anyway
                }
            }
        }

        private synchronized boolean isAbandoned() {
            return abandoned;
        }

        /**
         * Gives the call up; returns whether it had a connection. Its connection is aborted now, or, for a call
         * with a {@link Late} handler, once its grace has passed without an answer.
         */
        boolean abandon(Executor executor) {
            Connection c;
            synchronized (this) {
                abandoned = true;
                c = connection;
            }
            if (c == null) {
                return false;
            }
            if (late == null) {
                abortNow(executor);
            } else {
                executor.execute(() -> {
                    try {
                        if (done.await(graceNanos, TimeUnit.NANOSECONDS)) {
                            return;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    abortNow(executor);
                });
            }
            return true;
        }

        private void abortNow(Executor executor) {
            Connection c;
            synchronized (this) {
                c = connection;
                if (c == null) {
                    return; // the worker is done with it
                }
                aborted = true;
            }
            abortQuietly(c, executor);
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
