package dev.fenced.internal.lease;

import dev.fenced.Lease;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.TokenCells;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.metrics.Counter;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A lease this process holds. It keeps its own deadline on the monotonic clock, counted from the moment
 * the grant or the last successful renewal was <em>sent</em>: the database started its ttl later than
 * that, so while our deadline has not passed, the database has not let the lease expire either, as long as
 * its clock does not run ahead of ours. A clock-drift margin covers that: the deadline is
 * {@code sent + ttl - margin}. The deadline lives in the token cell ({@link DeadlineCell}), so the write
 * path checks it too, not only the renewer's timer.
 *
 * <p>States: held, then either lost (deadline passed, or the store says it is no longer ours) or released
 * by {@link #close()}. Both ends poison the token cell, so every thread and task still carrying it is
 * refused by the driver at once; only loss runs the {@code onLost} callbacks. Transitions are
 * compare-and-set: the renewer, the deadline check and the holder may race, and whoever comes first
 * decides, without locks.
 */
final class HeldLease implements Lease {

    private static final System.Logger LOG = Logs.get("dev.fenced.lease");

    private static final int HELD = 0;
    private static final int LOST = 1;
    private static final int RELEASED = 2;

    private final String name;
    private final long token;
    private final long renewEveryNanos;
    /** The clock-drift margin as a fraction of the ttl, for ttls set by {@link #extend}. */
    private final double marginFraction;
    // An extension changes these; only for leases nobody renews in the background (see extend).
    private volatile long ttlMillis;
    private volatile long ttlNanos;
    private volatile long validNanos;
    private final LeaseContext context;
    private final DeadlineCell cell;
    private final Thread acquiringThread;
    private final AtomicInteger state = new AtomicInteger(HELD);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<CallbackDispatcher.Once<Lease>> callbacks = new CopyOnWriteArrayList<>();
    private volatile long renewAt;
    private volatile @Nullable String lostBecause; // set just after the state turns LOST
    private @Nullable AtomicLong previousBinding; // touched only by the acquiring thread

    /**
     * @param marginNanos the clock-drift margin: the local deadline is this much earlier than the ttl says
     */
    HeldLease(
            String name,
            long token,
            long ttlMillis,
            long renewEveryNanos,
            long sentAtNanos,
            long marginNanos,
            LeaseContext context) {
        this.name = name;
        this.token = token;
        this.ttlMillis = ttlMillis;
        this.ttlNanos = ttlMillis * 1_000_000L;
        if (marginNanos < 0 || marginNanos >= ttlNanos) {
            throw new IllegalArgumentException("fenced: a clock-drift margin must be shorter than the ttl");
        }
        this.validNanos = ttlNanos - marginNanos;
        this.marginFraction = (double) marginNanos / ttlNanos;
        this.renewEveryNanos = renewEveryNanos;
        this.context = context;
        this.cell = new DeadlineCell(
                context.store().tokenDomain(),
                token,
                context.store().tokenOrigin(),
                this,
                context.ticker(),
                sentAtNanos + validNanos);
        this.acquiringThread = Thread.currentThread();
        this.renewAt = sentAtNanos + renewEveryNanos;
    }

    /** Binds the token to the calling (acquiring) thread, remembering what was bound before. */
    void bindToCurrentThread() {
        previousBinding = ContextAccess.swap(cell);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public boolean isValid() {
        if (state.get() != HELD) {
            return false;
        }
        return !loseIfExpired(context.ticker().read());
    }

    @Override
    public void onLost(Consumer<? super Lease> callback) {
        if (callback == null) {
            throw new NullPointerException("callback");
        }
        CallbackDispatcher.Once<Lease> once = new CallbackDispatcher.Once<>(callback);
        callbacks.add(once);
        // Registered after the loss (or while it was being announced): Once makes sure it runs exactly once.
        if (state.get() == LOST) {
            context.dispatcher().dispatch(once, this, describe());
        }
    }

    /** Releases the lease if it is still ours. Never throws: a failed release only means it expires later. */
    @Override
    public void close() {
        if (!end()) {
            return;
        }
        try {
            context.store()
                    .release(context.holder(), new String[] {name}, new long[] {token}, context.releaseBudgetNanos());
        } catch (Exception e) {
            LOG.log(
                    Level.WARNING,
                    "fenced: could not release lease '" + name + "' (token " + token
                            + "); it stays held in the store until it expires, at most " + ttlMillis + " ms: "
                            + e.getMessage());
        }
    }

    @Override
    public void closeKeepingFor(Duration atLeastHeldFor) {
        long holdMillis = atLeastHeldFor == null || atLeastHeldFor.isNegative() ? 0 : saturatedMillis(atLeastHeldFor);
        if (holdMillis == 0) {
            close();
            return;
        }
        if (!end()) {
            return;
        }
        try {
            context.store().releaseHolding(context.holder(), name, token, holdMillis, context.releaseBudgetNanos());
        } catch (Exception e) {
            LOG.log(
                    Level.WARNING,
                    "fenced: could not release lease '" + name + "' (token " + token
                            + "); it stays held in the store until it expires, at most " + ttlMillis + " ms: "
                            + e.getMessage());
        }
    }

    /**
     * One renewal statement for this lease alone, with the new ttl. Only for managers that do not renew: with
     * a background renewal in flight, two answers with different ttls could arrive in either order, and the
     * local deadline must never be later than the database's expiry. Extensions of one lease are serialised.
     */
    @Override
    public synchronized boolean extend(Duration ttl) throws SQLException {
        long ms = LeaseKeeper.checkedTtlMillis(ttl);
        if (context.renews()) {
            throw new IllegalStateException("fenced: lease '" + name + "' is renewed in the background by its manager;"
                    + " extend() is for leases of a manager built withoutRenewal()");
        }
        if (closed.get() || !isValid()) {
            return false;
        }
        long budget = Math.min(
                context.releaseBudgetNanos(),
                Math.max(
                        Renewer.MIN_BUDGET_NANOS,
                        (cell.deadlineNanos() - context.ticker().read()) / 2));
        for (int attempt = 0; attempt < EXTEND_ATTEMPTS; attempt++) {
            LeaseStore.Renewal r = context.store()
                    .renew(
                            context.holder(),
                            new String[] {name},
                            new long[] {token},
                            new long[] {ms},
                            budget,
                            context.ticker());
            if (r.renewed().contains(token)) {
                long newTtlNanos = ms * 1_000_000L;
                long newValid = newTtlNanos - (long) (newTtlNanos * marginFraction);
                ttlMillis = ms;
                ttlNanos = newTtlNanos;
                validNanos = newValid;
                cell.moveTo(r.sentAtNanos() + newValid);
                context.tracker().increment(Counter.LEASE_RENEWALS);
                context.renewer().rescheduled(this);
                return !closed.get();
            }
            if (!r.locked().contains(token)) {
                lose("the lease store no longer lists it as ours when extending it: it expired by the database"
                        + " clock, was taken over, or was released");
                return false;
            }
            // A would-be taker has the row locked for an instant: still ours by the database, try again.
            Thread.onSpinWait();
        }
        return false;
    }

    private static final int EXTEND_ATTEMPTS = 8;

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 2;
        }
    }

    /**
     * Ends the lease in this process without touching the store: no writes under its token from now on,
     * the acquiring thread's previous binding restored if this is that thread and nothing else was bound
     * since. Returns false if it had already ended that way; the acquiring thread is unbound all the same,
     * since the end that came first may have run on another thread (the manager closed elsewhere, or the
     * lease handed over and closed there), which could not touch this thread's binding.
     */
    boolean end() {
        boolean first = closed.compareAndSet(false, true);
        if (first) {
            state.compareAndSet(HELD, RELEASED);
            // Poisoned first: from here no write carries this token, also not from tasks that took the cell
            // with them. Only then may the row be released and granted to someone else.
            TokenCells.poison(cell);
            context.renewer().forget(this);
            LeaseRegistry.ended(this, token);
        }
        if (Thread.currentThread() == acquiringThread && ContextAccess.current() == cell) {
            ContextAccess.restore(previousBinding);
            previousBinding = null;
        }
        return first;
    }

    // ---- called by the renewer -------------------------------------------------------------------------

    long deadlineNanos() {
        return cell.deadlineNanos();
    }

    long renewAtNanos() {
        return renewAt;
    }

    long renewEveryNanos() {
        return renewEveryNanos;
    }

    long ttlMillis() {
        return ttlMillis;
    }

    boolean isHeld() {
        return state.get() == HELD;
    }

    /** Loses the lease if its deadline has passed at {@code now}; true if it is (now) lost or ended. */
    boolean loseIfExpired(long now) {
        if (now - cell.deadlineNanos() < 0) {
            return state.get() != HELD;
        }
        lose("its deadline passed (ttl " + ttlMillis + " ms less the clock-drift margin of "
                + (ttlNanos - validNanos) / 1_000_000 + " ms, since the last renewal was sent)");
        return true;
    }

    /** A renewal sent at {@code sentAtNanos} succeeded. */
    void renewed(long sentAtNanos) {
        if (state.get() != HELD) {
            return;
        }
        cell.extendTo(sentAtNanos + validNanos);
        renewAt = sentAtNanos + renewEveryNanos;
    }

    /** A renewal statement failed; try again at {@code retryAtNanos} (the deadline still rules). */
    void renewalFailed(long retryAtNanos) {
        renewAt = retryAtNanos;
    }

    /**
     * The lease is lost: poison its token first, then count it, and leave the telling (the log line, the
     * callbacks) to the callback thread. Nothing here blocks or does I/O: it runs on the renewer's timer (which
     * has other leases to lose on time) and on the write path, and a log that blocks (a full stderr pipe) must
     * not keep either from its work.
     */
    void lose(String why) {
        if (!state.compareAndSet(HELD, LOST)) {
            return;
        }
        lostBecause = why;
        TokenCells.poison(cell);
        context.tracker().increment(Counter.LEASES_LOST);
        LeaseRegistry.ended(this, token);
        context.renewer().forget(this);
        String what = describe();
        context.dispatcher()
                .execute(() -> LOG.log(
                        Level.WARNING,
                        "fenced: lost lease ''{0}'' (token {1}): {2}; writes under its token are refused from now on",
                        name,
                        Long.toString(token),
                        why));
        for (CallbackDispatcher.Once<Lease> once : callbacks) {
            context.dispatcher().dispatch(once, this, what);
        }
    }

    private String describe() {
        return "lease '" + name + "' (token " + token + ")";
    }

    /** Describes the state without changing it (unlike {@link #isValid()}, which may declare the loss). */
    @Override
    public String toString() {
        int s = state.get();
        String what = s == LOST
                ? "lost: " + lostBecause
                : s == RELEASED
                        ? "released"
                        : context.ticker().read() - cell.deadlineNanos() < 0 ? "held" : "deadline passed";
        return "Lease[" + name + ", token " + token + ", " + what + "]";
    }
}
