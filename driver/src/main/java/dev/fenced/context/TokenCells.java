package dev.fenced.context;

import java.util.concurrent.atomic.AtomicLong;

/** How a token cell's value is read; see {@link dev.fenced.bootstrap.FencedContextStore}. */
public final class TokenCells {

    /** Value of the cell bound inside {@code Fencing.unfenced}. */
    public static final long UNFENCED = 0L;

    private TokenCells() {
    }

    public static AtomicLong live(long token) {
        if (token <= 0) {
            throw new IllegalArgumentException("a fencing token must be positive, got " + token);
        }
        return new AtomicLong(token);
    }

    /** A cell that was lost from the start: every write under it is refused as the lease's would be. */
    public static AtomicLong lost(long token) {
        AtomicLong cell = live(token);
        poison(cell);
        return cell;
    }

    public static boolean isLost(long value) {
        return value < 0;
    }

    /** The token a cell value stands for, whether it is still live or was lost. */
    public static long tokenOf(long value) {
        return value < 0 ? -value : value;
    }

    /** Marks the cell as belonging to a lost lease; every holder of the cell sees it at once. */
    public static void poison(AtomicLong cell) {
        long v;
        do {
            v = cell.get();
            if (v <= 0) {
                return;
            }
        } while (!cell.compareAndSet(v, -v));
    }
}
