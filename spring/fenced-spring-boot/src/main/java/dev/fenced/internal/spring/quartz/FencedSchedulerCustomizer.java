package dev.fenced.internal.spring.quartz;

import dev.fenced.LeaseManager;
import dev.fenced.quartz.FencedJobFactory;
import dev.fenced.spring.config.FencedSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.quartz.spi.JobFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.scheduling.quartz.SchedulerFactoryBean;
import org.springframework.scheduling.quartz.SpringBeanJobFactory;

/**
 * Puts the jobs of the SchedulerFactoryBean Boot's {@code QuartzAutoConfiguration} makes under fenced leases,
 * {@code quartz:<group>.<name>} on the starter's {@link LeaseManager}, through Boot's own hook for it, a
 * {@code SchedulerFactoryBeanCustomizer} (Boot 3 and Boot 4 keep that interface in different packages: one
 * subclass each, in {@code boot3} and {@code boot4}, is the bean). Its job factory becomes a
 * {@link FencedJobFactory} around
 * <ul>
 * <li>the application's {@link JobFactory} bean, if it has exactly one: decorated, not replaced (one that is a
 *     {@link FencedJobFactory} already is set as it is);</li>
 * <li>else a {@link SpringBeanJobFactory}, as Boot's own, so jobs are still autowired.</li>
 * </ul>
 * It runs before the application's customizers, which keep the last word: one that sets a job factory of its own
 * replaces the fenced one, and start-up logs a warning saying so (SchedulerFactoryBean hands the scheduler context
 * only to the job factory it ends up with). A SchedulerFactoryBean the application defines itself is not
 * customized by Boot, so not by fenced either: set a {@link FencedJobFactory} on it. Nothing is changed when
 * {@code fenced.spring.quartz.enabled=false}.
 */
public class FencedSchedulerCustomizer implements Ordered, SmartInitializingSingleton {

    /** How long a job's lease lasts unrenewed: the starter's LeaseManager renews it every ttl/3 while the job runs. */
    static final Duration TTL = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger("dev.fenced.spring");

    private final ObjectProvider<FencedSettings> settings;
    private final ObjectProvider<LeaseManager> leases;
    private final ObjectProvider<JobFactory> jobFactories;
    private final List<SpringFencedJobFactory> handedOut = new CopyOnWriteArrayList<>();

    protected FencedSchedulerCustomizer(
            ObjectProvider<FencedSettings> settings,
            ObjectProvider<LeaseManager> leases,
            ObjectProvider<JobFactory> jobFactories) {
        this.settings = settings;
        this.leases = leases;
        this.jobFactories = jobFactories;
    }

    /** Boot's {@code SchedulerFactoryBeanCustomizer#customize}, which each line's subclass implements with this. */
    public void customize(SchedulerFactoryBean scheduler) {
        if (!settings.getObject().config().springQuartz()) {
            return;
        }
        JobFactory own = jobFactories.getIfUnique();
        if (own instanceof FencedJobFactory) {
            scheduler.setJobFactory(own);
            LOG.log(
                    System.Logger.Level.INFO,
                    "fenced: Boot''s SchedulerFactoryBean runs its Quartz jobs with the"
                            + " application''s own {0}, fenced already",
                    own.getClass().getSimpleName());
            return;
        }
        JobFactory delegate = own != null ? own : new SpringBeanJobFactory();
        SpringFencedJobFactory fenced = new SpringFencedJobFactory(
                new FencedJobFactory(leases.getObject(), TTL, delegate, FencedJobFactory::defaultLeaseName), delegate);
        scheduler.setJobFactory(fenced);
        handedOut.add(fenced);
        LOG.log(
                System.Logger.Level.INFO,
                "fenced: the Quartz jobs of Boot''s SchedulerFactoryBean run under fenced"
                        + " leases (FencedJobFactory around {0} {1})",
                own != null ? "the application's" : "a",
                delegate.getClass().getSimpleName());
    }

    /** A customizer after this one that set its own job factory leaves the jobs unfenced: said, not silent. */
    @Override
    public void afterSingletonsInstantiated() {
        for (SpringFencedJobFactory fenced : handedOut) {
            if (!fenced.installed()) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "fenced: a SchedulerFactoryBeanCustomizer after fenced''s"
                                + " replaced the job factory of Boot''s SchedulerFactoryBean, so its Quartz jobs do not run under"
                                + " fenced leases (unless that job factory is a FencedJobFactory): define your JobFactory as a"
                                + " bean instead (fenced wraps it), or wrap it in a dev.fenced.quartz.FencedJobFactory");
            }
        }
    }

    /** First, so that the application's customizers, run after it, keep the last word (Boot's convention). */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
