package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.locks.node.FencedNode;
import dev.fenced.it.locks.node.NightlyTotals;
import dev.fenced.it.locks.node.QuartzCluster;
import dev.fenced.it.locks.node.SchedulerLibrary;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.quartz.FencedJobFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.TriggerBuilder;
import org.quartz.impl.matchers.KeyMatcher;
import org.quartz.listeners.JobListenerSupport;

/**
 * Quartz in cluster mode (JDBC JobStore on PostgreSQL, {@code isClustered=true}), two scheduler instances, each
 * with its own pool and a {@link FencedJobFactory} over its own lease manager. One trigger fires the nightly-totals
 * job every 20 ms; the cluster hands each firing to one node, and the job allows concurrent execution, as most
 * Quartz jobs do. Node A's first run freezes after its read (its only worker blocked on a latch) past its lease's
 * ttl; B's firings are skipped while A holds the lease, and run once it has run out. When B has run three times A
 * writes its late total: refused and counted; no two successful runs overlap; no lost update.
 */
class QuartzTwoNodesIT {

    private static final JobKey JOB = JobKey.jobKey("nightly-totals", "fenced");
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int RUNS = 12;

    private static TestDatabase db;

    @BeforeAll
    static void setUp() throws Exception {
        db = TestDatabase.create();
        db.execute(NightlyTotals.TABLE_DDL);
        SchedulerLibrary.QUARTZ.createTables(db);
    }

    @Test
    void theFrozenNodesLateWriteIsRefusedAndRunsNeverOverlap() throws Exception {
        JobAudit audit = new JobAudit(db, RUNS);
        CountDownLatch bRanThrice = new CountDownLatch(3);
        JobAudit.FreezeOnce freezeA = new JobAudit.FreezeOnce();

        try (Node a = new Node("two-nodes", "a", audit, freezeA, null);
                Node b = new Node("two-nodes", "b", audit, () -> false, bRanThrice)) {
            a.scheduler.scheduleJob(
                    JobBuilder.newJob(TotalsJob.class).withIdentity(JOB).build(),
                    TriggerBuilder.newTrigger()
                            .withIdentity("every-20ms", "fenced")
                            .startNow()
                            .withSchedule(SimpleScheduleBuilder.repeatSecondlyForever()
                                    .withIntervalInMilliseconds(20))
                            .build());
            a.scheduler.start();
            assertTrue(freezeA.awaitFrozen(), "node A never ran");
            b.scheduler.start();
            assertTrue(bRanThrice.await(30, TimeUnit.SECONDS), "node B never took over");
            freezeA.resume();
            audit.awaitEnough();
        }
        audit.assertOneLateWriteRefusedNoOverlapNoLostUpdate(db, FencedJobFactory.defaultLeaseName(JOB));
    }

    /** A firing whose lease another holder has is skipped: the job is not called, the skip is counted. */
    @Test
    void anExecutionWhoseLeaseIsHeldIsSkippedAndCounted() throws Exception {
        JobAudit audit = new JobAudit(db, 1);
        JobKey key = JobKey.jobKey("busy-totals", "fenced");
        CountDownLatch fired = new CountDownLatch(1);
        try (Node a = new Node("busy", "a", audit, () -> false, null);
                LeaseManager other = LeaseManager.create(a.pool);
                Lease held = other.tryAcquire(FencedJobFactory.defaultLeaseName(key), Duration.ofSeconds(30))
                        .orElseThrow()) {
            a.scheduler
                    .getListenerManager()
                    .addJobListener(
                            new JobListenerSupport() {
                                @Override
                                public String getName() {
                                    return "fired";
                                }

                                @Override
                                public void jobWasExecuted(JobExecutionContext context, JobExecutionException e) {
                                    fired.countDown();
                                }
                            },
                            KeyMatcher.keyEquals(key));
            a.scheduler.scheduleJob(
                    JobBuilder.newJob(TotalsJob.class).withIdentity(key).build(),
                    TriggerBuilder.newTrigger()
                            .withIdentity("once", "fenced")
                            .startNow()
                            .build());
            a.scheduler.start();
            assertTrue(fired.await(30, TimeUnit.SECONDS), "the job never fired");
            assertEquals(1, a.jobs.skippedExecutions());
            assertEquals(0, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"), "the job did not run");
        }
    }

    /** The job Quartz instantiates (through the fenced factory) on whichever node the cluster gives a firing. */
    public static class TotalsJob implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            try {
                ((Node) context.getScheduler().getContext().get("node")).runJob();
            } catch (SchedulerException e) {
                throw new JobExecutionException(e);
            }
        }
    }

    /** One application instance: its pool, its lease manager (without renewal), its clustered Quartz scheduler. */
    static final class Node extends FencedNode {
        final FencedJobFactory jobs = new FencedJobFactory(leases, TTL);
        final JobAudit audit;
        final BooleanSupplier freeze;
        final CountDownLatch ran;
        final Scheduler scheduler;

        Node(String cluster, String name, JobAudit audit, BooleanSupplier freeze, CountDownLatch ran)
                throws SchedulerException {
            // Without renewal the ttl bounds each run, so a worker blocked past it stands for a frozen process.
            super(db.fencedUrl("fenced.tables=totals"), 6, false);
            this.audit = audit;
            this.freeze = freeze;
            this.ran = ran;
            scheduler = QuartzCluster.scheduler(cluster, name, pool, jobs);
            scheduler.getContext().put("node", this);
        }

        void runJob() {
            audit.run(pool, freeze, ran);
        }

        @Override
        public void close() {
            try {
                scheduler.shutdown(true);
            } catch (SchedulerException e) {
                throw new IllegalStateException(e);
            }
            super.close();
        }
    }
}
