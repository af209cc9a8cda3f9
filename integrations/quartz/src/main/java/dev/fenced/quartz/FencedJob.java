package dev.fenced.quartz;

import dev.fenced.Lease;
import java.sql.SQLException;
import java.util.Optional;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/**
 * One job execution under its lease, on Quartz's worker thread: the lease is taken, bound and released on that
 * thread, so the token covers exactly the job's run.
 */
class FencedJob implements Job {

    private static final System.Logger LOG = System.getLogger("dev.fenced.quartz");

    private final Job job;
    private final FencedJobFactory factory;
    private final String leaseName;

    FencedJob(Job job, FencedJobFactory factory, String leaseName) {
        this.job = job;
        this.factory = factory;
        this.leaseName = leaseName;
    }

    @Override
    public void execute(JobExecutionContext context) throws JobExecutionException {
        Optional<Lease> lease;
        try {
            lease = factory.leases().tryAcquire(leaseName, factory.ttl());
        } catch (SQLException e) {
            // Fail closed: without the lease the job does not run.
            throw new JobExecutionException(
                    "fenced: could not take lease '" + leaseName + "' for Quartz job "
                            + context.getJobDetail().getKey() + ": " + e.getMessage(),
                    e,
                    false);
        }
        if (lease.isEmpty()) {
            factory.countSkip();
            LOG.log(
                    System.Logger.Level.INFO,
                    () -> "fenced: skipped Quartz job " + context.getJobDetail().getKey() + " (fire "
                            + context.getFireInstanceId() + "): lease '" + leaseName + "' is held by another run");
            return;
        }
        try (Lease held = lease.get()) {
            held.onLost(l -> LOG.log(
                    System.Logger.Level.WARNING,
                    () -> "fenced: Quartz job "
                            + context.getJobDetail().getKey() + " lost lease '" + leaseName + "' (token " + l.token()
                            + ") while running: its writes to protected tables are refused from now on"));
            job.execute(context);
        }
    }

    Job job() {
        return job;
    }

    @Override
    public String toString() {
        return "FencedJob[" + leaseName + ": " + job + "]";
    }
}
