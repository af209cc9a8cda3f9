package dev.fenced.it.locks.node;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import dev.fenced.dbscheduler.FencedExecutionInterceptor;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.quartz.FencedJobFactory;
import dev.fenced.shedlock.FencedLockProvider;
import dev.fenced.spring.integration.FencedLockRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.TriggerBuilder;
import org.springframework.core.task.support.TaskExecutorAdapter;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * The lock libraries and schedulers fenced plugs into, each set up as an application would run the nightly-totals
 * job with it, in its own run loop: the library decides when and where the job runs, fenced's integration takes the
 * lease and binds its token. Used by the node JVMs ({@link SchedulerNode}) and by the in-process tests (their
 * tables, ShedLock's loop, the db-scheduler settings, the {@link Leader}), so both run the libraries alike.
 */
public enum SchedulerLibrary {

    /** Quartz, clustered JDBC JobStore, {@link FencedJobFactory}; one trigger fires every 20 ms. */
    QUARTZ(FencedJobFactory.defaultLeaseName(QuartzJob.KEY), true) {
        @Override
        public void createTables(TestDatabase db) throws Exception {
            QuartzCluster.createTables(db);
        }

        @Override
        public AutoCloseable start(FencedNode node, String name, Duration ttl, Runnable job) throws Exception {
            QuartzJob.run = job;
            org.quartz.Scheduler scheduler =
                    QuartzCluster.scheduler("frozen-jvm", name, node.pool, new FencedJobFactory(node.leases, ttl));
            if (!scheduler.checkExists(QuartzJob.KEY)) { // the first node schedules; the cluster shares the trigger
                scheduler.scheduleJob(
                        JobBuilder.newJob(QuartzJob.class)
                                .withIdentity(QuartzJob.KEY)
                                .build(),
                        TriggerBuilder.newTrigger()
                                .withIdentity("every-20ms", "fenced")
                                .startNow()
                                .withSchedule(SimpleScheduleBuilder.repeatSecondlyForever()
                                        .withIntervalInMilliseconds(20))
                                .build());
            }
            scheduler.start();
            return () -> scheduler.shutdown(true);
        }
    },

    /** db-scheduler, {@link FencedExecutionInterceptor}; a recurring task every 20 ms. */
    DB_SCHEDULER("db-scheduler:nightly-totals/recurring", true) {
        @Override
        public void createTables(TestDatabase db) {
            db.execute(SCHEDULED_TASKS_DDL);
        }

        @Override
        public AutoCloseable start(FencedNode node, String name, Duration ttl, Runnable job) {
            RecurringTask<Void> task = Tasks.recurring("nightly-totals", Schedules.fixedDelay(Duration.ofMillis(20)))
                    .execute((instance, context) -> job.run());
            Scheduler scheduler = dbScheduler(Scheduler.create(node.pool).startTasks(task), name)
                    .addExecutionInterceptor(new FencedExecutionInterceptor(
                            node.leases, ttl, Duration.ofMillis(200), FencedExecutionInterceptor::defaultLeaseName))
                    .build();
            scheduler.start();
            return scheduler::stop;
        }
    },

    /**
     * Spring Integration's {@link LockRegistryLeaderInitiator} over a {@link FencedLockRegistry}: the leader runs the
     * job once per term on the initiator's thread (which holds the lock), then yields.
     */
    SPRING_INTEGRATION("nightly-totals", true) {
        @Override
        public AutoCloseable start(FencedNode node, String name, Duration ttl, Runnable job) {
            Leader leader = new Leader(new FencedLockRegistry(node.leases, ttl, ""), name, job, () -> {});
            leader.start();
            return leader;
        }
    },

    /**
     * ShedLock with {@link FencedLockProvider}: what {@code @Scheduled(fixedDelay = 5)} with
     * {@code @SchedulerLock(name = "nightly-totals", lockAtMostFor = ttl)} does. ShedLock's lockAtMostFor is an upper
     * bound, so its leases are never renewed.
     */
    SHEDLOCK("nightly-totals", false) {
        @Override
        public AutoCloseable start(FencedNode node, String name, Duration ttl, Runnable job) {
            DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(new FencedLockProvider(node.leases));
            ScheduledExecutorService scheduler =
                    Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "scheduler-" + name));
            scheduler.scheduleWithFixedDelay(
                    () -> {
                        try {
                            executor.executeWithLock(
                                    job, new LockConfiguration(Instant.now(), leaseName(), ttl, Duration.ZERO));
                        } catch (RuntimeException e) {
                            // the scheduler logs and goes on; the job reported what happened
                        }
                    },
                    0,
                    5,
                    TimeUnit.MILLISECONDS);
            return () -> {
                scheduler.shutdown();
                scheduler.awaitTermination(30, TimeUnit.SECONDS);
            };
        }
    };

    /** db-scheduler's table, as its PostgreSQL script has it. */
    static final String SCHEDULED_TASKS_DDL = """
            CREATE TABLE scheduled_tasks (
              task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,
              execution_time timestamptz NOT NULL, picked boolean NOT NULL, picked_by text,
              last_success timestamptz, last_failure timestamptz, consecutive_failures int,
              last_heartbeat timestamptz, version bigint NOT NULL, priority smallint,
              PRIMARY KEY (task_name, task_instance))""";

    private final String leaseName;
    private final boolean renews;

    SchedulerLibrary(String leaseName, boolean renews) {
        this.leaseName = leaseName;
        this.renews = renews;
    }

    /** The lease the job runs under. */
    public String leaseName() {
        return leaseName;
    }

    /**
     * Whether the node's lease manager renews in the background, so a lease is held as long as its process runs
     * (and only a frozen process loses it), or the ttl bounds every run (ShedLock's lockAtMostFor).
     */
    public boolean renews() {
        return renews;
    }

    /** The library's own tables, if it has any. */
    public void createTables(TestDatabase db) throws Exception {}

    /** Starts the library's run loop on {@code node}, running {@code job}; closing it stops the loop gracefully. */
    public abstract AutoCloseable start(FencedNode node, String name, Duration ttl, Runnable job) throws Exception;

    /**
     * db-scheduler as the tests run it: one thread, polling every 50 ms, heartbeats every 200 ms and an execution
     * dead after four missed ones, so a frozen node's execution is taken over within a second or so.
     */
    public static SchedulerBuilder dbScheduler(SchedulerBuilder builder, String name) {
        return builder.threads(1)
                .pollingInterval(Duration.ofMillis(50))
                .heartbeatInterval(Duration.ofMillis(200))
                .missedHeartbeatsLimit(4)
                .schedulerName(new SchedulerName.Fixed(name));
    }

    /**
     * A {@link LockRegistryLeaderInitiator} for role {@code nightly-totals}: each term runs {@code job} and yields, so
     * the nodes take turns; heartbeats every 200 ms, a non-leader tries every 20 ms. {@link #close()} also waits for
     * the term in progress to end (the initiator's own {@code stop()} does not), so a run is never cut off by the
     * node closing its lease manager under it.
     */
    public static final class Leader implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "leader"));
        private final LockRegistryLeaderInitiator initiator;

        public Leader(FencedLockRegistry locks, String name, Runnable job, Runnable revoked) {
            initiator =
                    new LockRegistryLeaderInitiator(locks, new DefaultCandidate(name, SPRING_INTEGRATION.leaseName) {
                        @Override
                        public void onGranted(Context context) {
                            job.run();
                            context.yield();
                        }

                        @Override
                        public void onRevoked(Context context) {
                            revoked.run();
                        }
                    });
            initiator.setTaskExecutor(new TaskExecutorAdapter(thread));
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(20);
        }

        public void start() {
            initiator.start();
        }

        @Override
        public void close() throws InterruptedException {
            initiator.stop();
            thread.shutdown();
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the leader's term did not end");
            }
        }
    }

    /** The job Quartz instantiates (through the fenced factory) on whichever node the cluster gives a firing. */
    public static class QuartzJob implements Job {
        static final JobKey KEY = JobKey.jobKey("nightly-totals", "fenced");
        static volatile Runnable run;

        @Override
        public void execute(JobExecutionContext context) {
            run.run();
        }
    }
}
