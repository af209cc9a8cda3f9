package dev.fenced.lease;

import dev.fenced.metrics.FencedMetrics;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps a manager's leases: renews all that are due with one statement, and loses each one the moment
 * its deadline passes.
 *
 * <p>Two threads, on purpose. The timer thread wakes exactly when the earliest lease is due for renewal
 * or reaches its deadline (one tick planned at a time), and never does I/O. The statement runs on a
 * store thread: if the database hangs (a dead TCP peer, a pool that never hands out a connection), the
 * timer still poisons every lease at its deadline. At most one renewal statement is in flight.
 *
 * <p>A lease renews every {@code ttl/3} unless the manager fixes an interval. Leases due within a fifth of
 * their interval of each other share a statement, so a manager holding leases with many ttls still sends
 * few statements.
 */
final class Renewer {

    private static final System.Logger LOG = System.getLogger("dev.fenced.lease");

    /** "No time" for {@link #earlier}. */
    private static final long NONE = Long.MAX_VALUE;

    /** Shortest retry after a failed renewal statement, so an outage does not become a busy loop. */
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final LeaseStore store;
    private final String holder;
    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService storeThread;
    private final Map<Long, HeldLease> leases = new ConcurrentHashMap<>();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final Schedule schedule = new Schedule();
    private volatile boolean stopped;
    private volatile boolean failing;

    Renewer(LeaseStore store, String holder, String threadSuffix) {
        this.store = store;
        this.holder = holder;
        this.timer = new ScheduledThreadPoolExecutor(1, new DaemonThreads("fenced-lease-renewer-" + threadSuffix));
        this.timer.setRemoveOnCancelPolicy(true);
        this.storeThread = Executors.newSingleThreadExecutor(new DaemonThreads("fenced-lease-store-" + threadSuffix));
    }

    void add(HeldLease lease) {
        leases.put(lease.token(), lease);
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
        storeThread.shutdownNow();
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
                schedule.planned = timer.schedule(() -> tick(generation), Math.max(0, atNanos - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
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
        long now = System.nanoTime();
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
                storeThread.execute(() -> renew(due));
            } catch (RejectedExecutionException stopping) {
                inFlight.set(false);
                return;
            }
        }
        if (next != NONE) {
            wakeAt(next);
        }
    }

    /** On the store thread: one statement for every due lease. */
    private void renew(List<HeldLease> due) {
        int n = due.size();
        String[] names = new String[n];
        long[] tokens = new long[n];
        long[] ttls = new long[n];
        long shortestTtl = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            HeldLease lease = due.get(i);
            names[i] = lease.name();
            tokens[i] = lease.token();
            ttls[i] = lease.ttlMillis();
            shortestTtl = Math.min(shortestTtl, ttls[i]);
        }
        // A statement that outlives the shortest ttl is useless: its leases are lost by then anyway.
        int timeoutSeconds = (int) Math.max(1, (shortestTtl + 999) / 1000);
        long started = System.nanoTime();
        try {
            LeaseStore.Renewal result = store.renew(holder, names, tokens, ttls, timeoutSeconds);
            for (HeldLease lease : due) {
                if (result.renewed().contains(lease.token())) {
                    lease.renewed(result.sentAtNanos());
                    FencedMetrics.LEASE_RENEWALS.increment();
                } else if (lease.isHeld()) {
                    lease.lose("the lease store no longer lists it as ours: it expired by the database clock, was"
                            + " taken over, or was released by someone else");
                }
            }
            if (failing) {
                failing = false;
                LOG.log(Level.INFO, "fenced: lease renewals work again (" + result.renewed().size() + " leases renewed)");
            }
            if (LOG.isLoggable(Level.DEBUG)) {
                LOG.log(Level.DEBUG, "fenced: renewed " + result.renewed().size() + " of " + n + " leases in one statement, "
                        + (System.nanoTime() - started) / 1000 + " µs");
            }
        } catch (Exception e) {
            FencedMetrics.LEASE_RENEWALS_FAILED.add(n);
            long now = System.nanoTime();
            for (HeldLease lease : due) {
                lease.renewalFailed(now + Math.max(MIN_RETRY_NANOS, lease.renewEveryNanos() / 4));
            }
            if (!failing) {
                failing = true;
                LOG.log(Level.WARNING, "fenced: renewing " + n + " leases failed; retrying until each one's deadline: "
                        + e.getMessage());
            } else {
                LOG.log(Level.DEBUG, "fenced: renewing " + n + " leases failed again: " + e.getMessage());
            }
        } finally {
            inFlight.set(false);
            wakeAt(System.nanoTime());
        }
    }

    private static long earlier(long a, long b) {
        return a == NONE || b - a < 0 ? b : a;
    }

    /** The one planned tick; guarded by its own monitor. */
    private static final class Schedule {
        ScheduledFuture<?> planned;
        long plannedAt;
        long generation;
    }
}
