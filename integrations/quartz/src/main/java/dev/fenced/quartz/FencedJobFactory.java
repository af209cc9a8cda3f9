package dev.fenced.quartz;

import dev.fenced.LeaseManager;
import dev.fenced.LeaseNames;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.quartz.InterruptableJob;
import org.quartz.Job;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.simpl.PropertySettingJobFactory;
import org.quartz.spi.JobFactory;
import org.quartz.spi.TriggerFiredBundle;

/**
 * A Quartz {@link JobFactory} whose jobs run under a fenced lease per {@link JobKey}: each execution first takes
 * lease {@code quartz:<group>.<name>}, runs with its fencing token bound to the worker thread (so every write the
 * job makes to a protected table through the fenced driver carries it), and releases it when the job returns.
 *
 * <pre>{@code
 * scheduler.setJobFactory(new FencedJobFactory(LeaseManager.create(dataSource), Duration.ofSeconds(30)));
 * }</pre>
 *
 * <p>Why Quartz needs it even in cluster mode: a node that pauses (GC, a stalled VM) past the cluster check-in
 * is recovered by the others, which fire its jobs again while it may still be running them (Quartz #1287). Here
 * the second run waits for the lease, and the paused node's late writes meet the newer token:
 * <ul>
 *   <li><b>Busy</b>: an execution whose lease another run holds is skipped: the job is not called, the skip is
 *       counted ({@link #skippedExecutions()}) and logged, and Quartz completes the trigger as usual (the next
 *       firing tries again).</li>
 *   <li><b>Lost mid-run</b>: when the lease is lost (its holder paused past the ttl, or renewal failed) its token
 *       is poisoned: the job's further writes to protected tables are refused ({@code LeaseLostException}; one
 *       that slipped past would meet the newer holder's token in PostgreSQL, {@code StaleTokenException}), and a
 *       warning names the job.</li>
 * </ul>
 *
 * <p>The ttl is how long a lease lasts without renewal. With a {@link LeaseManager} that renews (the default)
 * a job holds its lease for as long as it runs and its process is alive; with one built
 * {@link LeaseManager.Builder#withoutRenewal() withoutRenewal()} the ttl bounds every run, like ShedLock's
 * {@code lockAtMostFor}. The job class's own annotations ({@code @DisallowConcurrentExecution},
 * {@code @PersistJobDataAfterExecution}) keep working: Quartz reads them from the {@code JobDetail}.
 * {@code JobExecutionContext.getJobInstance()} returns the wrapper, not your job.
 */
public final class FencedJobFactory implements JobFactory {

    private final LeaseManager leases;
    private final Duration ttl;
    private final JobFactory delegate;
    private final Function<JobKey, String> leaseName;
    private final AtomicLong skipped = new AtomicLong();

    /** Jobs made by Quartz's default factory ({@link PropertySettingJobFactory}), under leases {@code quartz:<group>.<name>}. */
    public FencedJobFactory(LeaseManager leases, Duration ttl) {
        this(leases, ttl, new PropertySettingJobFactory(), FencedJobFactory::defaultLeaseName);
    }

    /**
     * Jobs made by {@code delegate} (Spring's {@code SpringBeanJobFactory}, say, configured by you), each run under
     * lease {@code leaseName.apply(jobKey)}.
     */
    public FencedJobFactory(
            LeaseManager leases, Duration ttl, JobFactory delegate, Function<JobKey, String> leaseName) {
        this.leases = Objects.requireNonNull(leases, "leases");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("fenced: the lease ttl of Quartz jobs must be positive, got " + ttl);
        }
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.leaseName = Objects.requireNonNull(leaseName, "leaseName");
    }

    /**
     * {@code quartz:<group>.<name>}, the group escaped by {@link LeaseNames#of} so that two different jobs never
     * share a lease ({@code ("a.b", "c")} is {@code quartz:a%2Eb.c}, {@code ("a", "b.c")} is {@code quartz:a.b.c}).
     */
    public static String defaultLeaseName(JobKey key) {
        return LeaseNames.of("quartz", key.getGroup(), '.', key.getName());
    }

    @Override
    public Job newJob(TriggerFiredBundle bundle, Scheduler scheduler) throws SchedulerException {
        Job job = delegate.newJob(bundle, scheduler);
        String name = leaseName.apply(bundle.getJobDetail().getKey());
        if (name == null || name.isEmpty()) {
            throw new SchedulerException("fenced: no lease name for Quartz job "
                    + bundle.getJobDetail().getKey());
        }
        return job instanceof InterruptableJob interruptable
                ? new FencedInterruptableJob(interruptable, this, name)
                : new FencedJob(job, this, name);
    }

    /** Executions skipped because another run held their lease, since this factory was made. */
    public long skippedExecutions() {
        return skipped.get();
    }

    LeaseManager leases() {
        return leases;
    }

    Duration ttl() {
        return ttl;
    }

    void countSkip() {
        skipped.incrementAndGet();
    }
}
