package dev.fenced.internal.lease;

import dev.fenced.Lease;
import dev.fenced.Ticker;

/**
 * Internal, for the fault suite's checker only (not part of the public API in {@code dev.fenced}): the local
 * deadline of a lease this process holds, on {@link Ticker#system()} ({@link System#nanoTime()}) unless its manager was given another ticker, so a holder
 * can record when it sent each write against the deadline its lease had then.
 */
public final class LeaseDeadlines {

    private LeaseDeadlines() {}

    /** The lease's current local deadline in {@code System.nanoTime()} terms; it only moves later. */
    public static long deadlineNanos(Lease lease) {
        if (lease instanceof HeldLease held) {
            return held.deadlineNanos();
        }
        throw new IllegalArgumentException("not a lease granted by a LeaseManager: " + lease);
    }
}
