package dev.fenced.it.tokens;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The first holder of a lock, on a thread of its own: it takes the lock, reads its token, and then stops (a GC pause,
 * a stalled VM) until the test resumes it, long after its lock expired and another holder wrote; then it writes, as
 * the seed's paused client does. Latches, not sleeps, order the two.
 */
final class PausedHolder {

    /** What the holder does once resumed, with the token its lock gave it. */
    interface LateWrite {
        void write(long token) throws Exception;
    }

    private final CountDownLatch resume = new CountDownLatch(1);
    private final CompletableFuture<Long> token = new CompletableFuture<>();
    private final CompletableFuture<Throwable> written = new CompletableFuture<>();

    private PausedHolder() {}

    /** Starts the holder: {@code acquire} takes the lock and returns its token. */
    static PausedHolder start(String name, Callable<Long> acquire, LateWrite write) {
        PausedHolder h = new PausedHolder();
        Thread t = new Thread(
                () -> {
                    long mine;
                    try {
                        mine = acquire.call();
                        h.token.complete(mine);
                    } catch (Throwable e) {
                        h.token.completeExceptionally(e);
                        return;
                    }
                    try {
                        h.resume.await();
                        write.write(mine);
                        h.written.complete(null);
                    } catch (Throwable e) {
                        h.written.complete(e);
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
        return h;
    }

    /** The token the holder's lock gave it, once it has the lock. */
    long token() throws Exception {
        return token.get(30, TimeUnit.SECONDS);
    }

    /** Ends the pause; returns what the late write threw (null when it went through). */
    Throwable resumeAndWrite() throws Exception {
        resume.countDown();
        return written.get(30, TimeUnit.SECONDS);
    }
}
