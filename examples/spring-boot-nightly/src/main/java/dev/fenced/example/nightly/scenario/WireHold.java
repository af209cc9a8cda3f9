package dev.fenced.example.nightly.scenario;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The first write to {@code totals} that any instance sends, held on the wire. The scenario freezes the writer
 * right after its write has left it: fenced has by then read the token and checked the lease, so, once the write
 * arrives late, only the token check inside the statement can refuse it. (A freeze before the write would be
 * caught earlier, by the driver's own lease deadline: the weaker case.) One hold per scenario, on whichever link
 * carries that write first.
 */
final class WireHold {

    /** How the statement fenced sends for the job's write begins (the SQL text in pgjdbc's Parse message). */
    static final byte[] TOTALS_WRITE = "UPDATE totals SET".getBytes(StandardCharsets.US_ASCII);

    private final AtomicReference<String> heldOn = new AtomicReference<>();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /**
     * Called by a link for every chunk an instance sends ({@code window}: the chunk after the last bytes of the
     * previous one, so a statement split between two reads is still seen). Blocks, before the chunk is forwarded,
     * if it carries the first write to totals, until {@link #release()}.
     */
    void inspect(String link, byte[] window, int length) throws InterruptedException {
        if (heldOn.get() != null || !contains(window, length) || !heldOn.compareAndSet(null, link)) {
            return;
        }
        held.countDown();
        released.await();
    }

    /** The link whose write is held, once one is; null if none came within the timeout. */
    String awaitHeld(long timeout, TimeUnit unit) throws InterruptedException {
        return held.await(timeout, unit) ? heldOn.get() : null;
    }

    /** Lets the held write go on to PostgreSQL. */
    void release() {
        released.countDown();
    }

    private static boolean contains(byte[] window, int length) {
        outer:
        for (int i = 0; i + TOTALS_WRITE.length <= length; i++) {
            for (int j = 0; j < TOTALS_WRITE.length; j++) {
                if (window[i + j] != TOTALS_WRITE[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    static byte[] carryOver(byte[] window, int length) {
        int keep = Math.min(length, TOTALS_WRITE.length - 1);
        return Arrays.copyOfRange(window, length - keep, length);
    }
}
