package dev.fenced.spring.quartz;

import dev.fenced.LeaseManager;
import dev.fenced.quartz.FencedJobFactory;
import dev.fenced.spring.config.FencedSettings;
import java.lang.reflect.Field;
import java.time.Duration;
import org.quartz.spi.JobFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.scheduling.quartz.AdaptableJobFactory;
import org.springframework.scheduling.quartz.SchedulerFactoryBean;
import org.springframework.util.ReflectionUtils;

/**
 * Wraps the job factory of every {@link SchedulerFactoryBean} in a {@link FencedJobFactory}, so each Quartz job
 * runs under lease {@code quartz:<group>.<name>} on the starter's {@link LeaseManager}. Runs before the factory
 * bean's initialisation, that is after Boot's {@code QuartzAutoConfiguration} set its {@code SpringBeanJobFactory}
 * and applied every {@code SchedulerFactoryBeanCustomizer} (Boot 3 and Boot 4 keep that class in different
 * packages; a post-processor needs neither). The job factory in place stays the delegate: Boot's
 * {@code SpringBeanJobFactory} keeps autowiring jobs. One already fenced (the application wrapped it itself) is
 * left alone, as is every one when {@code fenced.spring.quartz.enabled=false}.
 */
public final class FencedJobFactoryPostProcessor implements BeanPostProcessor {

    /** How long a job's lease lasts unrenewed: the starter's LeaseManager renews it every ttl/3 while the job runs. */
    static final Duration TTL = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger("dev.fenced.spring");

    private final ObjectProvider<FencedSettings> settings;
    private final ObjectProvider<LeaseManager> leases;

    public FencedJobFactoryPostProcessor(ObjectProvider<FencedSettings> settings, ObjectProvider<LeaseManager> leases) {
        this.settings = settings;
        this.leases = leases;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (!(bean instanceof SchedulerFactoryBean scheduler) || !settings.getObject().config().springQuartz()) {
            return bean;
        }
        JobFactory current = jobFactory(scheduler, beanName);
        if (current instanceof FencedJobFactory || current instanceof SpringFencedJobFactory) {
            LOG.log(System.Logger.Level.INFO, "fenced: the job factory of SchedulerFactoryBean ''{0}'' is fenced"
                    + " already; left alone", beanName);
            return bean;
        }
        // No job factory set: SchedulerFactoryBean would use an AdaptableJobFactory, so that is what runs the jobs.
        JobFactory delegate = current != null ? current : new AdaptableJobFactory();
        scheduler.setJobFactory(new SpringFencedJobFactory(
                new FencedJobFactory(leases.getObject(), TTL, delegate, FencedJobFactory::defaultLeaseName), delegate));
        LOG.log(System.Logger.Level.INFO, "fenced: the Quartz jobs of SchedulerFactoryBean ''{0}'' run under fenced"
                + " leases (FencedJobFactory around its {1})", beanName, delegate.getClass().getSimpleName());
        return bean;
    }

    /** SchedulerFactoryBean has no getter for it; its field has been {@code jobFactory} since Spring 2. */
    private static JobFactory jobFactory(SchedulerFactoryBean scheduler, String beanName) {
        Field field = ReflectionUtils.findField(SchedulerFactoryBean.class, "jobFactory", JobFactory.class);
        if (field == null) {
            throw new IllegalStateException("fenced: cannot read the job factory of SchedulerFactoryBean '" + beanName
                    + "' (a Spring version fenced does not know?), so its jobs cannot be put under leases: set"
                    + " fenced.spring.quartz.enabled=false and set a dev.fenced.quartz.FencedJobFactory yourself");
        }
        ReflectionUtils.makeAccessible(field);
        return (JobFactory) ReflectionUtils.getField(field, scheduler);
    }
}
