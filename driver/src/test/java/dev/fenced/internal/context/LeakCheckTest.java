package dev.fenced.internal.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.leak.LeakCheck;
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
        LeakCheck check = LeakCheck.begin(ContextAccess.threadLocal());
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

    /** The leak check reads the driver's cell values its own way: an unfenced section's marker is named as such. */
    @Test
    void anUnfencedSectionsMarkerIsNamed() throws Exception {
        LeakCheck check = LeakCheck.begin(ContextAccess.threadLocal());
        AtomicReference<Thread> worker = new AtomicReference<>();
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "unfenced-worker");
            worker.set(t);
            return t;
        });
        try {
            pool.submit(() -> ContextAccess.swap(new AtomicLong(TokenCells.UNFENCED)))
                    .get();
            awaitIdle(worker.get());
            List<String> leaks = check.leaks();
            assertEquals(1, leaks.size(), leaks.toString());
            assertTrue(leaks.get(0).contains("an unfenced section's marker"), leaks.get(0));
            pool.submit(() -> ContextAccess.swap(null)).get();
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
