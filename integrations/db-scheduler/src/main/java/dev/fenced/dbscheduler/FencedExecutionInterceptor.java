package dev.fenced.dbscheduler;

import com.github.kagkarlsson.scheduler.event.ExecutionChain;
import com.github.kagkarlsson.scheduler.event.ExecutionInterceptor;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.LeaseNames;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A db-scheduler {@link ExecutionInterceptor} that runs every execution under a fenced lease per task instance,
 * {@code db-scheduler:<task>/<instance id>}, with the lease's fencing token bound to the execution thread: every
 * write the task makes to a protected table through the fenced driver carries it.
 *
 * <pre>{@code
 * Scheduler scheduler = Scheduler.create(dataSource, tasks)
 *         .addExecutionInterceptor(new FencedExecutionInterceptor(LeaseManager.create(dataSource), Duration.ofSeconds(30)))
 *         .build();
 * }</pre>
 *
 * <p>Why db-scheduler needs it: a node that pauses (GC, a stalled VM) stops sending heartbeats, another node
 * declares its execution dead and runs it again while the paused one may still be running it (db-scheduler
 * #365). Here the second run waits for the lease, and the paused node's late writes meet the newer token:
 * <ul>
 *   <li><b>Busy</b>: an execution whose lease another run holds does not run; it is counted
 *       ({@link #busyExecutions()}), logged, and rescheduled {@code busyRetry} later (by default the ttl, after
 *       which a paused holder's lease has run out), whatever kind of task it is.</li>
 *   <li><b>Lost mid-run</b>: when the lease is lost its token is poisoned: the task's further writes to protected
 *       tables are refused ({@code LeaseLostException}; one that slipped past would meet the newer holder's token
 *       in PostgreSQL, {@code StaleTokenException}); the task fails, and db-scheduler's failure handling runs.</li>
 * </ul>
 *
 * <p>The lease covers the task's {@code execute}; it is released before db-scheduler runs the completion handler
 * (which only updates db-scheduler's own table). With a {@link LeaseManager} that renews (the default) a run
 * holds its lease for as long as it runs and its process is alive; with one built
 * {@link LeaseManager.Builder#withoutRenewal() withoutRenewal()} the ttl bounds every run.
 */
public final class FencedExecutionInterceptor implements ExecutionInterceptor {

    private static final System.Logger LOG = System.getLogger("dev.fenced.dbscheduler");

    private final LeaseManager leases;
    private final Duration ttl;
    private final Duration busyRetry;
    private final Function<TaskInstance<?>, String> leaseName;
    private final AtomicLong busy = new AtomicLong();

    /** Leases {@code db-scheduler:<task>/<instance id>} of {@code ttl}; a busy execution is retried a ttl later. */
    public FencedExecutionInterceptor(LeaseManager leases, Duration ttl) {
        this(leases, ttl, ttl, FencedExecutionInterceptor::defaultLeaseName);
    }

    /** Leases named by {@code leaseName}; a busy execution is rescheduled {@code busyRetry} later. */
    public FencedExecutionInterceptor(
            LeaseManager leases, Duration ttl, Duration busyRetry, Function<TaskInstance<?>, String> leaseName) {
        this.leases = Objects.requireNonNull(leases, "leases");
        this.ttl = positive(ttl, "ttl");
        this.busyRetry = positive(busyRetry, "busyRetry");
        this.leaseName = Objects.requireNonNull(leaseName, "leaseName");
    }

    /**
     * {@code db-scheduler:<task>/<instance id>}, the task name escaped by {@link LeaseNames#of} so that two different
     * executions never share a lease ({@code ("report/daily", "1")} is {@code db-scheduler:report%2Fdaily/1}).
     */
    public static String defaultLeaseName(TaskInstance<?> instance) {
        return LeaseNames.of("db-scheduler", instance.getTaskName(), '/', instance.getId());
    }

    @Override
    public CompletionHandler<?> execute(
            TaskInstance<?> taskInstance, ExecutionContext executionContext, ExecutionChain chain) {
        String name = leaseName.apply(taskInstance);
        if (name == null || name.isEmpty()) {
            throw new IllegalStateException("fenced: no lease name for db-scheduler execution " + taskInstance);
        }
        Optional<Lease> lease;
        try {
            lease = leases.tryAcquire(name, ttl);
        } catch (SQLException e) {
            // Fail closed: without the lease the task does not run; db-scheduler's failure handler decides when again.
            throw new IllegalStateException(
                    "fenced: could not take lease '" + name + "' for db-scheduler execution " + taskInstance + ": "
                            + e.getMessage(),
                    e);
        }
        if (lease.isEmpty()) {
            busy.incrementAndGet();
            LOG.log(
                    System.Logger.Level.INFO,
                    () -> "fenced: db-scheduler execution " + taskInstance + " not run: lease '" + name
                            + "' is held by another run; rescheduled in " + busyRetry);
            return (complete, operations) ->
                    operations.reschedule(complete, complete.getTimeDone().plus(busyRetry));
        }
        try (Lease held = lease.get()) {
            held.onLost(l -> LOG.log(
                    System.Logger.Level.WARNING,
                    () -> "fenced: db-scheduler execution "
                            + taskInstance + " lost lease '" + name + "' (token " + l.token()
                            + ") while running: its writes to protected tables are refused from now on"));
            return chain.proceed(taskInstance, executionContext);
        }
    }

    /** Executions not run because another run held their lease, since this interceptor was made. */
    public long busyExecutions() {
        return busy.get();
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("fenced: " + what + " must be positive, got " + d);
        }
        return d;
    }
}
