package dev.fenced;

/**
 * The monotonic clock fenced measures time with: lease deadlines, renewal and retry times, {@link
 * LeaseManager#acquire}'s wait, the write path's deadline check, the catalog refresh interval. Like
 * {@link System#nanoTime()}: nanoseconds from an arbitrary origin, only differences mean anything.
 *
 * <p>One seam so that deadlines and waits can be tested deterministically with a clock the test moves
 * ({@link LeaseManager.Builder#ticker}); applications use {@link #system()}, the default.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary origin; only differences mean anything. */
    long read();

    /** {@link System#nanoTime()}. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}

/** The one system ticker, so {@code Ticker.system() == Ticker.system()}. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }
}
