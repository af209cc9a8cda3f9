package dev.fenced.internal.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The suite-wide invariant can fail: a pool's worker left with a binding is caught, and one cleaned up is not. */
class LeakCheckTest {

    @Test
    void anIdleWorkerLeftWithATokenIsCaughtAndNothingElse() throws Exception {
        LeakCheck check = LeakCheck.begin();
        AtomicReference<Thread> worker = new AtomicReference<>();
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "leaky-worker");
            worker.set(t);
            return t;
        });
        try {
            pool.submit(() -> ContextAccess.swap(new AtomicLong(42))).get(); // bound and never restored
            awaitIdle(worker.get());
            List<String> leaks = check.leaks();
            assertEquals(1, leaks.size(), leaks.toString());
            assertTrue(
                    leaks.get(0).contains("'leaky-worker'") && leaks.get(0).contains("lease token 42"), leaks.get(0));

            pool.submit(() -> ContextAccess.swap(null)).get();
            awaitIdle(worker.get());
            assertEquals(List.of(), check.leaks());
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /** Until the worker waits in the pool's queue for its next task (no sleep: the state is polled). */
    private static void awaitIdle(Thread worker) {
        while (!(worker.getState() == Thread.State.WAITING && inGetTask(worker))) {
            Thread.onSpinWait();
        }
    }

    private static boolean inGetTask(Thread t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getMethodName().equals("getTask")) {
                return true;
            }
        }
        return false;
    }
}
