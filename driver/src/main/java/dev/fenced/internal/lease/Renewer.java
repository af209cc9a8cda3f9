package dev.fenced.internal.lease;

import dev.fenced.Ticker;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.metrics.Tracker;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a manager's leases: renews all that are due with one statement, and loses each one the moment
 * its deadline passes.
 *
 * <p>Two threads, on purpose. The timer thread wakes exactly when the earliest lease is due for renewal
 * or reaches its deadline (one tick planned at a time), and never does I/O. The round (send the statement,
 * wait for it, apply the answer) runs on one of the store's worker threads: if the database hangs (a dead TCP
 * peer, a pool that never hands out a connection), the timer still poisons every lease at its deadline. At
 * most one renewal round is in flight.
 *
 * <p>A lease renews every {@code ttl/3} unless the manager fixes an interval. Leases due within a fifth of
 * their interval of each other share a statement, so a manager holding leases with many ttls still sends
 * few statements.
 *
 * <p>Each renewal statement has a time budget ({@link StoreCalls}): half the time left to the earliest
 * deadline it serves, at most the store timeout. A statement that runs out of it (a stalled network, a
 * server that does not answer) is given up, its connection aborted, and retried while the deadlines allow,
 * so the store thread is never stuck and renewal resumes as soon as the store answers again. A lease whose
 * row someone else has locked is skipped by the statement and retried alone soon after; the others are
 * renewed on time.
 */
final class Renewer {

    private static final System.Logger LOG = Logs.get("dev.fenced.lease");

    /** "No time" for {@link #earlier}. */
    private static final long NONE = Long.MAX_VALUE;

    /** Shortest retry after a failed renewal statement, so an outage does not become a busy loop. */
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** The least time a renewal statement is given, however close its deadline. */
    static final long MIN_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final StoreAccess store;
    private final String holder;
    private final Ticker ticker;
    private final long storeTimeoutNanos;
    private final Tracker tracker;
    private final ScheduledThreadPoolExecutor timer;
    /** The round in flight, interrupted by {@link #stop()} (its statement is then given up). */
    private volatile @Nullable Future<?> round;

    private final Map<Long, HeldLease> leases = new ConcurrentHashMap<>();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final Schedule schedule = new Schedule();
    private volatile boolean stopped;
    private volatile boolean failing;

    Renewer(
            StoreAccess store,
            String holder,
            String threadSuffix,
            Ticker ticker,
            long storeTimeoutNanos,
            Tracker tracker,
            FencedThreads threads) {
        this.store = store;
        this.holder = holder;
        this.ticker = ticker;
        this.storeTimeoutNanos = storeTimeoutNanos;
        this.tracker = tracker;
        this.timer = threads.timer("fenced-lease-renewer-" + threadSuffix);
    }

    void add(HeldLease lease) {
        leases.put(lease.token(), lease);
        wakeAt(earlier(lease.renewAtNanos(), lease.deadlineNanos()));
    }

    /** A lease's deadline moved (an explicit extension): the timer must still lose it on time. */
    void rescheduled(HeldLease lease) {
        wakeAt(earlier(lease.renewAtNanos(), lease.deadlineNanos()));
    }

    void forget(HeldLease lease) {
        leases.remove(lease.token(), lease);
    }

    int size() {
        return leases.size();
    }

    /** For tests: ticks waiting in the timer's queue (one while leases are held). */
    int queuedTicks() {
        return timer.getQueue().size();
    }

    /** Stops renewing and hands back the leases still held, for the manager to release. */
    List<HeldLease> stop() {
        stopped = true;
        timer.shutdownNow();
        Future<?> inFlightRound = round;
        if (inFlightRound != null) {
            inFlightRound.cancel(true);
        }
        return new ArrayList<>(leases.values());
    }

    /**
     * Makes sure a tick runs no later than {@code atNanos}. Exactly one tick is planned at any time: an
     * earlier one replaces it (the generation tells a replaced tick that is already running to stand
     * down), so ticks never pile up however leases come and go. Called per grant and per tick only.
     */
    private void wakeAt(long atNanos) {
        synchronized (schedule) {
            if (stopped || (schedule.planned != null && schedule.plannedAt - atNanos <= 0)) {
                return;
            }
            if (schedule.planned != null) {
                schedule.planned.cancel(false);
            }
            long generation = ++schedule.generation;
            schedule.plannedAt = atNanos;
            try {
                schedule.planned = timer.schedule(
                        () -> tick(generation), Math.max(0, atNanos - ticker.read()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopping) {
                schedule.planned = null; // stop() won the race; nothing left to renew
            }
        }
    }

    /** On the timer thread: lose what has expired, send the renewals that are due, plan the next tick. */
    private void tick(long generation) {
        synchronized (schedule) {
            if (stopped || generation != schedule.generation) {
                return;
            }
            // From here a lease added meanwhile plans a tick of its own.
            schedule.planned = null;
        }
        long now = ticker.read();
        boolean sending = !inFlight.get();
        List<HeldLease> due = new ArrayList<>();
        long next = NONE;
        for (HeldLease lease : leases.values()) {
            if (lease.loseIfExpired(now)) {
                continue;
            }
            long deadline = lease.deadlineNanos();
            if (sending && now - (lease.renewAtNanos() - lease.renewEveryNanos() / 5) >= 0) {
                due.add(lease);
            } else if (sending) {
                next = earlier(next, lease.renewAtNanos());
            }
            next = earlier(next, deadline);
        }
        if (!due.isEmpty() && inFlight.compareAndSet(false, true)) {
            try {
                Future<?> started = store.inBackground(() -> renew(due));
                round = started;
                if (stopped) {
                    // stop() may have looked for a round before this one was there: no round outlives stop()
                    started.cancel(true);
                }
            } catch (RejectedExecutionException e) {
                inFlight.set(false);
                if (stopped) {
                    return;
                }
                // every store worker is stuck on a connection that never answered: a failed round, retried
                failed(due, e);
                for (HeldLease lease : due) {
                    next = earlier(next, lease.renewAtNanos());
                }
            }
        }
        if (next != NONE) {
            wakeAt(next);
        }
    }

    /** On a store worker: one statement for every due lease. */
    private void renew(List<HeldLease> due) {
        int n = due.size();
        String[] names = new String[n];
        long[] tokens = new long[n];
        long[] ttls = new long[n];
        long earliestDeadline = NONE;
        for (int i = 0; i < n; i++) {
            HeldLease lease = due.get(i);
            names[i] = lease.name();
            tokens[i] = lease.token();
            ttls[i] = lease.ttlMillis();
            earliestDeadline = earlier(earliestDeadline, lease.deadlineNanos());
        }
        long started = ticker.read();
        try {
            LeaseStore.Renewal result = store.renew(
                    holder, names, tokens, ttls, budget(earliestDeadline - started, storeTimeoutNanos), ticker);
            long now = ticker.read();
            for (HeldLease lease : due) {
                if (result.renewed().contains(lease.token())) {
                    lease.renewed(result.sentAtNanos());
                    tracker.increment(Counter.LEASE_RENEWALS);
                } else if (result.locked().contains(lease.token())) {
                    // Someone else holds the row's lock; it is still ours by the database: try again soon.
                    lease.renewalFailed(retryAt(now, lease));
                } else if (lease.isHeld()) {
                    lease.lose("the lease store no longer lists it as ours: it expired by the database clock, was"
                            + " taken over, or was released by someone else");
                }
            }
            if (failing) {
                failing = false;
                LOG.log(
                        Level.INFO,
                        "fenced: lease renewals work again (" + result.renewed().size() + " leases renewed)");
            }
            if (LOG.isLoggable(Level.DEBUG)) {
                LOG.log(
                        Level.DEBUG,
                        "fenced: renewed " + result.renewed().size() + " of " + n + " leases in one statement, "
                                + (ticker.read() - started) / 1000 + " µs");
            }
        } catch (Exception e) {
            failed(due, e);
        } finally {
            inFlight.set(false);
            wakeAt(ticker.read());
        }
    }

    /** A renewal round that failed as a whole: counted, logged, and each lease retried a little later. */
    private void failed(List<HeldLease> due, Exception e) {
        int n = due.size();
        tracker.add(Counter.LEASE_RENEWALS_FAILED, n);
        long now = ticker.read();
        for (HeldLease lease : due) {
            lease.renewalFailed(retryAt(now, lease));
        }
        if (!failing) {
            failing = true;
            LOG.log(
                    Level.WARNING,
                    "fenced: renewing " + n + " leases failed; retrying until each one's deadline: " + e.getMessage());
        } else {
            LOG.log(Level.DEBUG, "fenced: renewing " + n + " leases failed again: " + e.getMessage());
        }
    }

    /**
     * The time a renewal statement may take: half the time left to the earliest deadline it serves (so a
     * retry still fits), at least {@link #MIN_BUDGET_NANOS}, at most the store timeout.
     */
    static long budget(long untilEarliestDeadline, long storeTimeoutNanos) {
        return Math.min(storeTimeoutNanos, Math.max(MIN_BUDGET_NANOS, untilEarliestDeadline / 2));
    }

    /** After a failed or skipped renewal: again in a quarter of the interval, not sooner than 20 ms. */
    static long retryAt(long now, HeldLease lease) {
        return now + Math.max(MIN_RETRY_NANOS, lease.renewEveryNanos() / 4);
    }

    private static long earlier(long a, long b) {
        return a == NONE || b - a < 0 ? b : a;
    }

    /** The one planned tick; guarded by its own monitor. */
    private static final class Schedule {
        @Nullable
        ScheduledFuture<?> planned; // null: no tick planned

        long plannedAt;
        long generation;
    }
}
