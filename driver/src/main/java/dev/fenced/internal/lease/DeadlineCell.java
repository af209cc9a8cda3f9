package dev.fenced.internal.lease;

import dev.fenced.Ticker;
import dev.fenced.internal.context.TokenCell;
import dev.fenced.internal.context.TokenDomains;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The token cell of a lease: the token while the lease holds, its negation once it is lost or released
 * (see {@link dev.fenced.internal.context.TokenCells}), plus the lease's local deadline, so the write path can check
 * the deadline itself. The renewer's timer thread also loses leases at their deadline, but a timer can be
 * starved of CPU or stuck behind a blocked log; a nanoTime compare on every write cannot. Its token is of its store's
 * domain ({@link TokenDomains#FENCED} for PostgreSQL).
 */
public final class DeadlineCell extends TokenCell {

    private static final long serialVersionUID = 1L;

    private final transient HeldLease lease;
    private final transient Ticker ticker;
    private volatile long deadlineNanos;

    DeadlineCell(
            String domain, long token, @Nullable String origin, HeldLease lease, Ticker ticker, long deadlineNanos) {
        super(domain, token, origin);
        this.lease = lease;
        this.ticker = ticker;
        this.deadlineNanos = deadlineNanos;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    /** Moves the deadline later (never earlier: an older renewal's answer may arrive after a newer one's). */
    synchronized void extendTo(long deadline) {
        if (deadline - deadlineNanos > 0) {
            deadlineNanos = deadline;
        }
    }

    /**
     * Sets the deadline, earlier or later: for an explicit extension of a lease nobody renews in the background,
     * whose answer is the only one there is.
     */
    synchronized void moveTo(long deadline) {
        deadlineNanos = deadline;
    }

    /**
     * The value a write must go by: for a lease's cell whose deadline has passed, the lease is lost first
     * (poisoned at once; logging and callbacks happen on another thread), so the value is the poisoned one.
     * Any other cell (a {@code Fencing.bind} scope, an unfenced section) is read as it is.
     */
    public static long valueForWrite(AtomicLong cell) {
        long v = cell.get();
        if (v > 0 && cell instanceof DeadlineCell d && d.ticker.read() - d.deadlineNanos >= 0) {
            d.lease.lose("its deadline passed (noticed by a write)");
            return cell.get();
        }
        return v;
    }
}
