package dev.fenced.quartz;

import org.quartz.InterruptableJob;
import org.quartz.UnableToInterruptJobException;

/** A {@link FencedJob} over an {@link InterruptableJob}: {@code Scheduler.interrupt} still reaches the job. */
final class FencedInterruptableJob extends FencedJob implements InterruptableJob {

    FencedInterruptableJob(InterruptableJob job, FencedJobFactory factory, String leaseName) {
        super(job, factory, leaseName);
    }

    @Override
    public void interrupt() throws UnableToInterruptJobException {
        ((InterruptableJob) job()).interrupt();
    }
}
