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
        try (Worker worker = new Worker("leaky-worker")) {
            worker.runThenIdle(() -> ContextAccess.swap(new AtomicLong(42))); // bound and never restored
            List<String> leaks = check.leaks();
            assertEquals(1, leaks.size(), leaks.toString());
            assertTrue(
                    leaks.get(0).contains("'leaky-worker'") && leaks.get(0).contains("lease token 42"), leaks.get(0));

            worker.runThenIdle(() -> ContextAccess.swap(null));
            assertEquals(List.of(), check.leaks());
        }
    }

    /** The leak check reads the driver's cell values its own way: an unfenced section's marker is named as such. */
    @Test
    void anUnfencedSectionsMarkerIsNamed() throws Exception {
        LeakCheck check = LeakCheck.begin(ContextAccess.threadLocal());
        try (Worker worker = new Worker("unfenced-worker")) {
            worker.runThenIdle(() -> ContextAccess.swap(new AtomicLong(TokenCells.UNFENCED)));
            List<String> leaks = check.leaks();
            assertEquals(1, leaks.size(), leaks.toString());
            assertTrue(leaks.get(0).contains("an unfenced section's marker"), leaks.get(0));
            worker.runThenIdle(() -> ContextAccess.swap(null));
        }
    }

    /** A one-thread pool: each task runs to its end, and the call returns once the worker waits for the next. */
    private static final class Worker implements AutoCloseable {
        private final AtomicReference<Thread> thread = new AtomicReference<>();
        private final ExecutorService pool;

        Worker(String name) {
            pool = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                thread.set(t);
                return t;
            });
        }

        void runThenIdle(Runnable task) throws Exception {
            pool.submit(task).get();
            awaitIdle(thread.get());
        }

        @Override
        public void close() throws InterruptedException {
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
