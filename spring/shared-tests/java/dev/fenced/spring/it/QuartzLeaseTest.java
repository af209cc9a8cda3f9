package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.LeaseManager;
import dev.fenced.quartz.FencedJobFactory;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.quartz.SchedulerFactoryBean;
import org.springframework.scheduling.quartz.SpringBeanJobFactory;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * Quartz on the class path: the SchedulerFactoryBean Boot's QuartzAutoConfiguration makes runs each job under a
 * fenced lease, its job still autowired by Boot's SpringBeanJobFactory; off by property, and an application's own
 * FencedJobFactory is not wrapped again.
 */
class QuartzLeaseTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLines.quartzAutoConfiguration(),
                    dev.fenced.spring.FencedAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn", "spring.quartz.auto-startup=true")
            .withBean(DataSource.class, TestDataSources::fresh)
            .withBean(TokenProbe.class, TokenProbe::new)
            .withBean(JobDetail.class, QuartzLeaseTest::probeJob)
            .withBean(Trigger.class, QuartzLeaseTest::now);

    @Test
    void bootsSchedulerRunsEachJobUnderItsLeaseAndStillAutowiresIt() {
        runner.run(context -> {
            assertTrue(context.getBean(TokenProbe.class).tokenOfTheRun() > 0,
                    "the job ran without a fencing token: its job factory was not wrapped");
        });
    }

    @Test
    void offByProperty() {
        runner.withPropertyValues("fenced.spring.quartz.enabled=false").run(context -> {
            assertEquals(-1, context.getBean(TokenProbe.class).tokenOfTheRun());
            assertTrue(jobFactory(context.getBean(SchedulerFactoryBean.class)) instanceof SpringBeanJobFactory);
        });
    }

    @Test
    void anApplicationsOwnFencedJobFactoryIsLeftAlone() {
        runner.withUserConfiguration(OwnScheduler.class).run(context -> {
            assertSame(context.getBean(FencedJobFactory.class), jobFactory(context.getBean(SchedulerFactoryBean.class)));
        });
    }

    /** A scheduler of the application's, its jobs already under fenced leases. */
    @Configuration(proxyBeanMethods = false)
    static class OwnScheduler {

        @Bean
        FencedJobFactory ownJobFactory(LeaseManager leases) {
            return new FencedJobFactory(leases, Duration.ofSeconds(30));
        }

        @Bean
        SchedulerFactoryBean ownScheduler(FencedJobFactory jobs) {
            SchedulerFactoryBean own = new SchedulerFactoryBean();
            Properties quartz = new Properties();
            quartz.setProperty("org.quartz.threadPool.threadCount", "1");
            own.setQuartzProperties(quartz);
            own.setJobFactory(jobs);
            return own;
        }
    }

    private static Object jobFactory(SchedulerFactoryBean scheduler) {
        return ReflectionTestUtils.getField(scheduler, "jobFactory");
    }

    private static JobDetail probeJob() {
        return JobBuilder.newJob(ProbeJob.class).withIdentity("probe").storeDurably().build();
    }

    private static Trigger now() {
        return TriggerBuilder.newTrigger().forJob("probe").startNow().build();
    }

    /** Autowired by Boot's SpringBeanJobFactory: a job that was not would fail on its null probe. */
    public static class ProbeJob implements Job {

        @Autowired
        private TokenProbe probe;

        @Override
        public void execute(JobExecutionContext context) {
            probe.record();
        }
    }
}
