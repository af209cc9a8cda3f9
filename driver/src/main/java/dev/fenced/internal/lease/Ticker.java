package dev.fenced.internal.lease;

/**
 * The monotonic clock lease timing reads: deadlines, retry times, the write path's deadline check. One seam so
 * that deadline, retry and close-versus-renew races can be tested deterministically with a clock the test
 * moves; production code only ever uses {@link #SYSTEM}.
 */
@FunctionalInterface
public interface Ticker {

    /** {@link System#nanoTime()}. */
    Ticker SYSTEM = System::nanoTime;

    /** Nanoseconds from an arbitrary origin; only differences mean anything. */
    long nanos();
}
