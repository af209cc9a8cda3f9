package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.dbscheduler.FencedExecutionInterceptor;
import dev.fenced.it.locks.node.FencedNode;
import dev.fenced.it.locks.node.NightlyTotals;
import dev.fenced.it.locks.node.SchedulerLibrary;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * db-scheduler with a {@link FencedExecutionInterceptor} in this JVM: an execution whose lease is held elsewhere.
 * The two-node case, one node frozen past its lease while db-scheduler's heartbeats declare its execution dead and
 * the other node runs it again (db-scheduler #365), runs with real processes and SIGSTOP in
 * {@link FrozenJvmTwoNodesIT}.
 */
class DbSchedulerBusyIT {

    private static TestDatabase db;

    @BeforeAll
    static void setUp() throws Exception {
        db = TestDatabase.create();
        db.execute(NightlyTotals.TABLE_DDL);
        SchedulerLibrary.DB_SCHEDULER.createTables(db);
    }

    /** An execution whose lease another holder has does not run: counted, and rescheduled busyRetry later. */
    @Test
    void anExecutionWhoseLeaseIsHeldDoesNotRunAndIsRescheduled() throws Exception {
        JobAudit audit = new JobAudit(db, 1);
        CountDownLatch done = new CountDownLatch(1);
        try (FencedNode node = new FencedNode(db.fencedUrl("fenced.tables=totals"), 4, true);
                LeaseManager other = LeaseManager.create(node.pool);
                Lease held = other.tryAcquire("db-scheduler:once/1", Duration.ofSeconds(30))
                        .orElseThrow()) {
            FencedExecutionInterceptor fencing = new FencedExecutionInterceptor(node.leases, Duration.ofSeconds(30));
            OneTimeTask<Void> once =
                    Tasks.oneTime("once").execute((instance, c) -> audit.run(node.pool, () -> false, null));
            Scheduler scheduler = SchedulerLibrary.dbScheduler(Scheduler.create(node.pool, once), "busy")
                    .addExecutionInterceptor(fencing)
                    .addSchedulerListener(new AbstractSchedulerListener() {
                        @Override
                        public void onExecutionComplete(ExecutionComplete complete) {
                            done.countDown();
                        }
                    })
                    .build();
            scheduler.start();
            try {
                scheduler.schedule(once.instance("1"), Instant.now());
                assertTrue(done.await(30, TimeUnit.SECONDS), "the execution never came");
                assertEquals(1, fencing.busyExecutions());
                assertEquals(
                        0, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"), "the task did not run");
                assertEquals(
                        1,
                        db.queryLong("SELECT count(*) FROM scheduled_tasks WHERE task_name = 'once'"
                                + " AND execution_time > now() + interval '20 seconds'"),
                        "rescheduled a ttl later");
            } finally {
                scheduler.stop();
            }
        }
    }
}
