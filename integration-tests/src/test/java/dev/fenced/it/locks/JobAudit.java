package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedStats;
import dev.fenced.LeaseLostException;
import dev.fenced.it.locks.node.LateWrite;
import dev.fenced.it.locks.node.NightlyTotals;
import dev.fenced.it.locks.node.NodeJvm.Run;
import dev.fenced.it.support.TestDatabase;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * The nightly-totals job ({@link NightlyTotals}) the in-process scheduler tests run on two nodes, and the audit of
 * its runs: each run reads the total of restaurant 77, adds one and writes it back, so a lost update shows as a
 * total below the number of successful runs. A run may freeze between its read and its write. Every run that wrote
 * is recorded with its start and end; every refused write is kept; anything else is unexpected.
 */
final class JobAudit {

    private final List<Run> runs = new ArrayList<>(); // every successful run
    private final List<Throwable> refused = new ArrayList<>();
    private final AtomicInteger unexpected = new AtomicInteger();
    private final CountDownLatch enough;
    private final long lostBefore = FencedStats.counters().get("fenced.writes.lease_lost");
    private final long staleBefore = FencedStats.counters().get("fenced.writes.stale");

    /** Starts an audit that is {@link #awaitEnough done} after {@code runs} successful runs. */
    JobAudit(TestDatabase db, int runs) {
        db.execute(NightlyTotals.RESET);
        this.enough = new CountDownLatch(runs);
    }

    /**
     * One run of the job on the calling thread, which carries the run's token. {@code freeze} is called between
     * the read and the write; {@code ran}, if given, is counted down after a successful run.
     */
    void run(DataSource pool, BooleanSupplier freeze, CountDownLatch ran) {
        run(pool, freeze, ran, LateWrite.OWN_THREAD);
    }

    /** As {@link #run(DataSource, BooleanSupplier, CountDownLatch)}, writing as {@code how} says. */
    void run(DataSource pool, BooleanSupplier freeze, CountDownLatch ran, LateWrite how) {
        long start = System.nanoTime();
        try {
            // whether it froze does not matter to the audit
            long token = NightlyTotals.run(pool, how, () -> {
                boolean unused = freeze.getAsBoolean();
            });
            long end = System.nanoTime();
            synchronized (runs) {
                runs.add(new Run(Thread.currentThread().getName(), token, start, end));
            }
            if (ran != null) {
                ran.countDown();
            }
            enough.countDown();
        } catch (Throwable e) {
            SQLException refusal = NightlyTotals.refusal(e);
            synchronized (runs) {
                if (refusal != null) {
                    refused.add(refusal);
                } else {
                    e.printStackTrace();
                    unexpected.incrementAndGet();
                }
            }
        }
    }

    void awaitEnough() throws InterruptedException {
        assertTrue(enough.await(60, TimeUnit.SECONDS), "the job stopped running");
    }

    /**
     * The frozen run's late write was refused (on the client, its lease lost; or by PostgreSQL, a newer token on
     * the row) and counted once; no two successful runs overlapped; the total counts every successful run once.
     */
    void assertOneLateWriteRefusedNoOverlapNoLostUpdate(TestDatabase db, String lease) {
        synchronized (runs) {
            assertEquals(0, unexpected.get(), "unexpected failures");
            assertEquals(1, refused.size(), "refused late writes: " + refused);
            Throwable r = refused.get(0);
            if (r instanceof LeaseLostException) {
                assertTrue(r.getMessage().contains(lease), r.getMessage());
            }
            assertEquals(
                    lostBefore + staleBefore + 1,
                    FencedStats.counters().get("fenced.writes.lease_lost")
                            + FencedStats.counters().get("fenced.writes.stale"),
                    "the refused write is counted");
            assertNoOverlapNoLostUpdate(db, runs);
        }
    }

    /**
     * Successful runs, in the order they started, never overlap and carry increasing tokens; the total counts each
     * once; the row carries the last one's token.
     */
    static void assertNoOverlapNoLostUpdate(TestDatabase db, List<Run> runs) {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(Run::start));
        assertFalse(sorted.isEmpty(), "no run");
        for (int i = 1; i < sorted.size(); i++) {
            Run before = sorted.get(i - 1);
            Run after = sorted.get(i);
            assertTrue(after.start() > before.end(), "runs overlap: " + before + " and " + after);
            assertTrue(after.token() > before.token(), "tokens go up: " + before + " then " + after);
        }
        assertEquals(
                sorted.size(),
                db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"),
                "the total counts every successful run once: no lost update");
        assertEquals(
                sorted.get(sorted.size() - 1).token(),
                db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 77"),
                "the last run's write stands");
    }

    /** The one refused write, once {@link #assertOneLateWriteRefusedNoOverlapNoLostUpdate} has passed. */
    Throwable refusal() {
        synchronized (runs) {
            return refused.get(0);
        }
    }

    /**
     * The freeze of node A in the in-process tests: the first run that asks holds its thread after the read, with
     * its lease, until {@link #resume}; {@link #awaitFrozen} waits for that. Later runs pass.
     */
    static final class FreezeOnce implements BooleanSupplier {
        private final CountDownLatch frozen = new CountDownLatch(1);
        private final CountDownLatch resumed = new CountDownLatch(1);
        private final java.util.concurrent.atomic.AtomicBoolean used = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public boolean getAsBoolean() {
            if (!used.compareAndSet(false, true)) {
                return false;
            }
            frozen.countDown();
            await(resumed);
            return true;
        }

        boolean awaitFrozen() throws InterruptedException {
            return frozen.await(30, TimeUnit.SECONDS);
        }

        void resume() {
            resumed.countDown();
        }
    }

    /** Waits for {@code latch} inside a job; a latch that never opens fails the run (as unexpected). */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
