package dev.fenced.internal.spring.quartz;

import dev.fenced.quartz.FencedJobFactory;
import org.quartz.Job;
import org.quartz.Scheduler;
import org.quartz.SchedulerContext;
import org.quartz.SchedulerException;
import org.quartz.spi.JobFactory;
import org.quartz.spi.TriggerFiredBundle;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.scheduling.quartz.SchedulerContextAware;

/**
 * A {@link FencedJobFactory} as SchedulerFactoryBean sees it: SchedulerFactoryBean hands its application context and
 * scheduler context to the job factory it holds, and Spring's job factories need them (SpringBeanJobFactory fills
 * job properties from the scheduler context), so they are passed on to the wrapped one. Being handed the scheduler
 * context also tells that this factory is the one the scheduler runs its jobs with ({@link #installed()}).
 */
final class SpringFencedJobFactory implements JobFactory, ApplicationContextAware, SchedulerContextAware {

    private final FencedJobFactory fenced;
    private final JobFactory delegate;
    private volatile boolean installed;

    SpringFencedJobFactory(FencedJobFactory fenced, JobFactory delegate) {
        this.fenced = fenced;
        this.delegate = delegate;
    }

    @Override
    public Job newJob(TriggerFiredBundle bundle, Scheduler scheduler) throws SchedulerException {
        return fenced.newJob(bundle, scheduler);
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        if (delegate instanceof ApplicationContextAware aware) {
            aware.setApplicationContext(context);
        }
    }

    @Override
    public void setSchedulerContext(SchedulerContext context) {
        installed = true;
        if (delegate instanceof SchedulerContextAware aware) {
            aware.setSchedulerContext(context);
        }
    }

    /** True once a SchedulerFactoryBean made this its scheduler's job factory (it passes its context then). */
    boolean installed() {
        return installed;
    }
}
