package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import dev.fenced.it.locks.node.FencedNode;
import dev.fenced.it.locks.node.LateWrite;
import dev.fenced.it.locks.node.NightlyTotals;
import dev.fenced.it.locks.node.SchedulerLibrary;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ShedLock's own run loop on two nodes in this JVM: each node has its own pool, its own FencedLockProvider (its own
 * lease manager) and a scheduler thread firing the nightly-totals job through ShedLock's
 * {@code DefaultLockingTaskExecutor} every few milliseconds ({@link SchedulerLibrary#SHEDLOCK}, as the node JVMs of
 * {@link FrozenJvmTwoNodesIT} run it). Node A's first run freezes after its read (its thread blocked on a latch,
 * the rest of the JVM running) until node B, once A's lockAtMostFor has run out, has run the job three times; then A
 * writes its late total as {@link LateWrite} says. It is refused and counted;
 * no two successful runs overlap; no lost update.
 */
class ShedLockTwoNodesIT {

    private static final Duration AT_MOST = Duration.ofMillis(800);
    private static final int RUNS = 12;

    private static TestDatabase db;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute(NightlyTotals.TABLE_DDL);
    }

    /**
     * OWN_THREAD: A's lost lease is noticed on the client (LeaseLostException). COPY_BOUND_LATE: refused as well (the
     * driver ties the copy to its lost lease; failing that, the database's fence would refuse it). COPY_BOUND_EARLY:
     * only the database's fence can refuse it (StaleTokenException).
     */
    @ParameterizedTest
    @EnumSource(LateWrite.class)
    void theFrozenNodesLateWriteIsRefusedAndRunsNeverOverlap(LateWrite how) throws Exception {
        JobAudit audit = new JobAudit(db, RUNS);
        CountDownLatch bRanThrice = new CountDownLatch(3);
        JobAudit.FreezeOnce freezeA = new JobAudit.FreezeOnce();

        try (Node a = new Node("a", pool -> audit.run(pool, freezeA, null, how))) {
            assertTrue(freezeA.awaitFrozen(), "node A never ran");
            try (Node b = new Node("b", pool -> audit.run(pool, () -> false, bRanThrice, how))) {
                assertTrue(bRanThrice.await(30, TimeUnit.SECONDS), "node B never took over");
                freezeA.resume();
                audit.awaitEnough();
            }
        }
        audit.assertOneLateWriteRefusedNoOverlapNoLostUpdate(db, SchedulerLibrary.SHEDLOCK.leaseName());
        switch (how) {
            case OWN_THREAD -> assertInstanceOf(LeaseLostException.class, audit.refusal());
            case COPY_BOUND_EARLY -> assertInstanceOf(StaleTokenException.class, audit.refusal());
            case COPY_BOUND_LATE -> {} // either, as assertOneLateWriteRefusedNoOverlapNoLostUpdate accepts
        }
    }

    /** One application instance: its pool and lease manager, ShedLock's loop running the job on its pool. */
    static final class Node implements AutoCloseable {
        final FencedNode fenced = new FencedNode(db.fencedUrl("fenced.tables=totals"), 4, false);
        final AutoCloseable loop;

        Node(String name, Consumer<DataSource> job) throws Exception {
            loop = SchedulerLibrary.SHEDLOCK.start(fenced, name, AT_MOST, () -> job.accept(fenced.pool));
        }

        @Override
        public void close() throws Exception {
            loop.close();
            fenced.close();
        }
    }
}
