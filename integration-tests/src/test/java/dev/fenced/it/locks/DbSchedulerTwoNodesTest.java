package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.dbscheduler.FencedExecutionInterceptor;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * db-scheduler on two nodes over one PostgreSQL, each with its own pool, its own lease manager (renewing, ttl
 * 2 s) and a {@link FencedExecutionInterceptor}. A recurring task runs the nightly-totals job every 20 ms on
 * whichever node picks it. Node A's first run freezes after its read, and with it everything A sends to the
 * database through its scheduler's DataSource, as a paused process would: its heartbeats stop (so B declares the
 * execution dead and runs it again, db-scheduler #365) and so do its lease renewals (so A's lease runs out). When B
 * has run the job three times A writes its late total: refused and counted; no two successful runs overlap; no
 * lost update.
 */
class DbSchedulerTwoNodesTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int RUNS = 12;

    private static TestDatabase db;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute(JobAudit.TABLE_DDL, """
                CREATE TABLE scheduled_tasks (
                  task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,
                  execution_time timestamptz NOT NULL, picked boolean NOT NULL, picked_by text,
                  last_success timestamptz, last_failure timestamptz, consecutive_failures int,
                  last_heartbeat timestamptz, version bigint NOT NULL, priority smallint,
                  PRIMARY KEY (task_name, task_instance))""");
    }

    @Test
    void theFrozenNodesLateWriteIsRefusedAndRunsNeverOverlap() throws Exception {
        db.execute("DELETE FROM scheduled_tasks");
        JobAudit audit = new JobAudit(db, RUNS);
        CountDownLatch aRead = new CountDownLatch(1);
        CountDownLatch bRanThrice = new CountDownLatch(3);
        CountDownLatch resumeA = new CountDownLatch(1);
        AtomicBoolean aFrozenOnce = new AtomicBoolean();
        Node[] nodes = new Node[1];
        BooleanSupplier freezeA = () -> {
            if (aFrozenOnce.compareAndSet(false, true)) {
                nodes[0].database.freeze();
                aRead.countDown();
                JobAudit.await(resumeA);
                return true;
            }
            return false;
        };

        try (Node a = new Node("a", audit, freezeA, null)) {
            nodes[0] = a;
            a.start(a.recurring);
            assertTrue(aRead.await(30, TimeUnit.SECONDS), "node A never ran");
            try (Node b = new Node("b", audit, () -> false, bRanThrice)) {
                b.start(b.recurring);
                assertTrue(bRanThrice.await(30, TimeUnit.SECONDS), "node B never took over");
                a.database.thaw();
                resumeA.countDown();
                audit.awaitEnough();
            }
        }
        audit.assertOneLateWriteRefusedNoOverlapNoLostUpdate(db, "db-scheduler:nightly-totals/recurring");
    }

    /** An execution whose lease another holder has does not run: counted, and rescheduled busyRetry later. */
    @Test
    void anExecutionWhoseLeaseIsHeldDoesNotRunAndIsRescheduled() throws Exception {
        db.execute("DELETE FROM scheduled_tasks");
        JobAudit audit = new JobAudit(db, 1);
        CountDownLatch done = new CountDownLatch(1);
        try (Node a = new Node("busy", audit, () -> false, null);
             LeaseManager other = LeaseManager.create(a.pool);
             Lease held = other.tryAcquire("db-scheduler:once/1", Duration.ofSeconds(30)).orElseThrow()) {
            a.listener = done;
            a.start(a.once);
            a.scheduler.schedule(a.once.instance("1"), Instant.now());
            assertTrue(done.await(30, TimeUnit.SECONDS), "the execution never came");
            assertEquals(1, a.fencing.busyExecutions());
            assertEquals(0, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"), "the task did not run");
            assertTrue(db.queryLong("SELECT count(*) FROM scheduled_tasks WHERE task_name = 'once'"
                    + " AND execution_time > now() + interval '20 seconds'") == 1, "rescheduled a ttl later");
        }
    }

    /** One application instance: its pool, its lease manager, its db-scheduler. */
    static final class Node implements AutoCloseable {
        final HikariDataSource pool = JobAudit.warmedUp(Pools.fenced(db, 6, "fenced.tables=totals"));
        /** What the scheduler and the lease manager reach the database through; frozen with the node. */
        final FreezableDataSource database = new FreezableDataSource(pool);
        final LeaseManager leases = LeaseManager.create(database);
        final FencedExecutionInterceptor fencing;
        final String name;
        final RecurringTask<Void> recurring;
        final OneTimeTask<Void> once;
        volatile CountDownLatch listener;
        Scheduler scheduler;

        Node(String name, JobAudit audit, BooleanSupplier freeze, CountDownLatch ran) {
            this.name = name;
            this.fencing = name.equals("busy")
                    ? new FencedExecutionInterceptor(leases, Duration.ofSeconds(30))
                    : new FencedExecutionInterceptor(leases, TTL, Duration.ofMillis(200),
                            FencedExecutionInterceptor::defaultLeaseName);
            recurring = Tasks.recurring("nightly-totals", Schedules.fixedDelay(Duration.ofMillis(20)))
                    .execute((TaskInstance<Void> instance, com.github.kagkarlsson.scheduler.task.ExecutionContext c)
                            -> audit.run(pool, freeze, ran));
            once = Tasks.oneTime("once").execute((instance, c) -> audit.run(pool, freeze, ran));
        }

        void start(RecurringTask<Void> task) {
            build(Scheduler.create(database, once).startTasks(task));
        }

        void start(OneTimeTask<Void> task) {
            build(Scheduler.create(database, task));
        }

        private void build(com.github.kagkarlsson.scheduler.SchedulerBuilder builder) {
            scheduler = builder.addExecutionInterceptor(fencing)
                    .addSchedulerListener(new AbstractSchedulerListener() {
                        @Override
                        public void onExecutionComplete(ExecutionComplete complete) {
                            CountDownLatch l = listener;
                            if (l != null) {
                                l.countDown();
                            }
                        }
                    })
                    .threads(1)
                    .pollingInterval(Duration.ofMillis(50))
                    .heartbeatInterval(Duration.ofMillis(200))
                    .missedHeartbeatsLimit(4)
                    .schedulerName(new SchedulerName.Fixed(name))
                    .build();
            scheduler.start();
        }

        @Override
        public void close() {
            database.thaw();
            if (scheduler != null) {
                scheduler.stop();
            }
            leases.close();
            pool.close();
        }
    }
}
