package dev.fenced.spring.it;

import dev.fenced.Fencing;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** What a scheduled job saw: the fencing token bound to its thread (-1: none), recorded by its first run. */
public final class TokenProbe {

    private final AtomicLong token = new AtomicLong(-1);
    private final CountDownLatch ran = new CountDownLatch(1);

    /** Called by the job. */
    public void record() {
        if (ran.getCount() > 0) {
            token.set(Fencing.currentToken().orElse(-1));
            ran.countDown();
        }
    }

    /** The token of the first run, once it has run. */
    public long tokenOfTheRun() throws InterruptedException {
        if (!ran.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the job did not run within 60 s");
        }
        return token.get();
    }
}
