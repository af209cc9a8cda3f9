package dev.fenced.internal.lease;

import dev.fenced.FencingException;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.pg.PgStates;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Calls to a lease store, each bounded by a time budget whatever the store does (a client that never answers, a
 * peer that silently vanished, a pool that never lends a connection): the call runs on a worker thread and the
 * caller waits at most its budget. The caller being free is what matters: the renewer's thread is never stuck, so
 * renewal resumes as soon as the store answers again, and {@code acquire} and {@code close} return on time.
 *
 * <p>A call that overruns is given up and the caller gets an {@link SQLTimeoutException} (57014); the call is then
 * cut short: its worker interrupted, and whatever the work said ends it at once ({@link Call#begin}: PostgreSQL's
 * calls abort their connection, since a blocked socket read ignores interrupts). A call whose answer would take
 * effect unseen (a grant that nobody would hold or renew) is instead given as long again to answer, and cut short
 * only then; its work undoes an answer that comes after its caller gave up ({@link Call#abandoned}).
 *
 * <p>One instance per store of a manager: PostgreSQL's ({@link StoreCalls}) and any other store of the SPI
 * ({@link BoundedStore}) are bounded by this same code.
 */
final class BoundedCalls {

    /** More workers than this stuck at once means something is badly wrong; refuse instead of piling up. */
    static final int MAX_WORKERS = 256;

    /** The work of one call, on a worker thread. */
    @FunctionalInterface
    interface Work<T> {
        T run(Call call) throws Exception;
    }

    /**
     * How a store explains a call given up before its work had {@linkplain Call#begin begun} (PostgreSQL: no
     * connection from the DataSource, so nothing was sent), instead of "the store did not answer".
     */
    @FunctionalInterface
    interface NotBegun {
        SQLException explain(String what, long budgetMillis);
    }

    private final String store;
    private final String threadName;
    private final @Nullable NotBegun notBegun;
    private final ThreadPoolExecutor workers;
    private final AtomicInteger timeouts = new AtomicInteger();

    /**
     * @param store how messages name the store (its token domain)
     * @param notBegun null for a store whose work has no stage before it reaches the store
     */
    BoundedCalls(FencedThreads threads, String threadName, String store, @Nullable NotBegun notBegun) {
        this.store = store;
        this.threadName = threadName;
        this.notBegun = notBegun;
        this.workers = threads.pool(threadName, MAX_WORKERS, 30);
    }

    /**
     * Runs {@code work} on a worker, unbounded: the renewer's round, which waits there for its store call (run on
     * another worker by {@link #run}) so that neither the renewer's timer nor a thread of its own is ever stuck.
     *
     * @throws RejectedExecutionException if the store is shut down or all its workers are stuck
     */
    Future<?> submit(Runnable work) {
        return workers.submit(work);
    }

    /** How many calls ran out of their budget so far (for tests and messages). */
    int timeouts() {
        return timeouts.get();
    }

    /**
     * Runs {@code work} on a worker, giving up after {@code budgetNanos}.
     *
     * @param undoesLateAnswer whether {@code work} undoes an answer that comes after its caller gave up; it is then
     *     given as long again before it is cut short
     * @throws SQLTimeoutException (57014) if the budget ran out; the call may or may not have taken effect
     */
    <T> T run(String what, long budgetNanos, Work<T> work, boolean undoesLateAnswer) throws SQLException {
        Call call = new Call(undoesLateAnswer ? budgetNanos : 0);
        Future<T> task;
        try {
            // Submitted as a Callable: the pool builds its task with nothing bound (FencedThreads), where a
            // FutureTask built here would carry the caller's token to the worker under the agent.
            task = workers.submit(() -> call.run(work));
        } catch (RejectedExecutionException e) {
            throw new FencingException(
                    "fenced: cannot " + what + ": "
                            + (workers.isShutdown()
                                    ? "its LeaseManager is closed"
                                    : MAX_WORKERS + " earlier calls to the lease store (" + store
                                            + ") are still stuck, never answered"),
                    FencingException.LEASE_STORE,
                    e);
        }
        try {
            return task.get(Math.max(1, budgetNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            boolean begun = call.abandon(task);
            timeouts.incrementAndGet();
            long budgetMillis = TimeUnit.NANOSECONDS.toMillis(budgetNanos);
            if (!begun && notBegun != null) {
                throw notBegun.explain(what, budgetMillis);
            }
            throw new SQLTimeoutException(
                    "fenced: the lease store (" + store + ") did not answer within " + budgetMillis + " ms (" + what
                            + "); "
                            + (undoesLateAnswer
                                    ? "a late answer is undone when it arrives, and the call cut short after as long"
                                            + " again"
                                    : "the call was cut short"),
                    PgStates.QUERY_CANCELED);
        } catch (InterruptedException e) {
            call.abandon(task);
            Thread.currentThread().interrupt();
            throw new FencingException(
                    "fenced: interrupted while waiting for the lease store (" + what + ")",
                    FencingException.SQLSTATE,
                    e);
        } catch (ExecutionException e) {
            // FutureTask wraps what the task threw, and a throw never throws null
            throw unwrapped(
                    what, Objects.requireNonNull(e.getCause(), "an ExecutionException carries the task's failure"));
        }
    }

    /**
     * What the caller gets for a call that failed. An SQLException as itself: its SQLState is what callers (and
     * retry logic) key on. An Error as itself. Anything else, a RuntimeException included, becomes a
     * {@link FencingException} with state {@link FencingException#LEASE_STORE} and the cause kept: a store of the SPI
     * reports failures any way it likes (jetcd throws unchecked exceptions), while a LeaseManager promises an
     * SQLException for a store that cannot grant, and its callers (the ShedLock, Quartz, db-scheduler and Spring
     * Integration adapters, the manager's own "who holds it" lookup) catch SQLException only; an unchecked one
     * rethrown as itself would escape them all. It also names the call, and keeps the caller's stack, which a
     * cause thrown on a worker does not have.
     */
    private SQLException unwrapped(String what, Throwable cause) {
        if (cause instanceof SQLException s) {
            return s;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new FencingException(
                "fenced: the lease store (" + store + ") failed to " + what + ": " + cause,
                FencingException.LEASE_STORE,
                cause);
    }

    /** One call, between its worker and its caller. */
    final class Call {
        private final long graceNanos; // 0: cut short as soon as the caller gives up
        private final CountDownLatch done = new CountDownLatch(1);
        // guarded by this: ends the work at once, from another thread (null: nothing begun)
        private @Nullable Runnable cut;
        private boolean abandoned; // guarded by this: the caller has given up
        private boolean wasCut; // guarded by this: cut ran while the work had begun

        private Call(long graceNanos) {
            this.graceNanos = graceNanos;
        }

        private <T> T run(Work<T> work) throws Exception {
            try {
                return work.run(this);
            } finally {
                done.countDown();
            }
        }

        /**
         * The work has reached the store (PostgreSQL: it has its connection), and {@code cut} ends it at once from
         * another thread (aborting the connection); false if the caller has already given up: the work must then
         * stop before sending anything.
         */
        synchronized boolean begin(Runnable cut) {
            if (abandoned) {
                return false;
            }
            this.cut = cut;
            return true;
        }

        /** The work is done with the store (its connection given back); returns whether it was cut short. */
        synchronized boolean end() {
            cut = null;
            return wasCut;
        }

        /** Whether the caller has given up: an answer now comes too late, and the work undoes it. */
        synchronized boolean abandoned() {
            return abandoned;
        }

        /** The caller gives up; returns whether the work had begun. Cuts it short now, or after its grace. */
        private boolean abandon(Future<?> task) {
            boolean begun;
            synchronized (this) {
                abandoned = true;
                begun = cut != null;
            }
            if (graceNanos == 0) {
                cutShort(task);
            } else {
                FencedThreads.start(threadName + "-late", () -> {
                    try {
                        if (done.await(graceNanos, TimeUnit.NANOSECONDS)) {
                            return;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    cutShort(task);
                });
            }
            return begun;
        }

        private void cutShort(Future<?> task) {
            Runnable c;
            synchronized (this) {
                c = cut;
                wasCut |= c != null;
            }
            if (c != null) {
                c.run();
            }
            task.cancel(true);
        }
    }
}
