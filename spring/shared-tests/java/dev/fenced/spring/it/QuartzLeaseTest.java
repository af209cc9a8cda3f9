package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.LeaseManager;
import dev.fenced.quartz.FencedJobFactory;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.spi.TriggerFiredBundle;
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
 * fenced lease (through a SchedulerFactoryBeanCustomizer), its job still autowired by Boot's SpringBeanJobFactory;
 * an application's JobFactory bean is decorated, not replaced; off by property; an application's own
 * FencedJobFactory is not wrapped again; a customizer that replaces the fenced job factory is warned about.
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
    void anApplicationsJobFactoryBeanIsDecoratedNotReplaced() {
        runner.withBean(CountingJobFactory.class, CountingJobFactory::new).run(context -> {
            assertTrue(context.getBean(TokenProbe.class).tokenOfTheRun() > 0, "the job ran without a fencing token");
            assertTrue(context.getBean(CountingJobFactory.class).made.get() > 0,
                    "the application's job factory was replaced: it made no job");
        });
    }

    @Test
    void anApplicationsFencedJobFactoryBeanIsBootsJobFactoryAsItIs() {
        runner.withUserConfiguration(OwnFencedJobFactory.class)
                .run(context -> {
                    assertSame(context.getBean(FencedJobFactory.class),
                            jobFactory(context.getBean(SchedulerFactoryBean.class)));
                    assertTrue(context.getBean(TokenProbe.class).tokenOfTheRun() > 0);
                });
    }

    @Test
    void aCustomizerThatReplacesTheFencedJobFactoryIsWarnedAbout() {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.fenced.spring");
        log.addHandler(handler);
        try {
            runner.withBean("ownCustomizer", customizerType(), QuartzLeaseTest::replacingCustomizer).run(context -> {
                assertTrue(jobFactory(context.getBean(SchedulerFactoryBean.class)) instanceof SpringBeanJobFactory,
                        "the application's customizer ran after fenced's and kept the last word");
                assertTrue(warnings.stream().anyMatch(w -> w.contains("replaced the job factory")), warnings.toString());
            });
        } finally {
            log.removeHandler(handler);
        }
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

    /** A FencedJobFactory bean of the application's, around Boot-like autowiring. */
    @Configuration(proxyBeanMethods = false)
    static class OwnFencedJobFactory {

        @Bean
        FencedJobFactory ownJobFactory(LeaseManager leases, org.springframework.context.ApplicationContext context) {
            SpringBeanJobFactory autowiring = new SpringBeanJobFactory();
            autowiring.setApplicationContext(context);
            return new FencedJobFactory(leases, Duration.ofSeconds(30), autowiring, FencedJobFactory::defaultLeaseName);
        }
    }

    /** The application's job factory: autowires as Boot's does, and counts the jobs it made. */
    public static class CountingJobFactory extends SpringBeanJobFactory {
        final AtomicInteger made = new AtomicInteger();

        @Override
        protected Object createJobInstance(TriggerFiredBundle bundle) throws Exception {
            made.incrementAndGet();
            return super.createJobInstance(bundle);
        }
    }

    /** Boot's SchedulerFactoryBeanCustomizer interface of this Boot line (Boot 4 moved it). */
    @SuppressWarnings("unchecked")
    private static Class<Object> customizerType() {
        String autoconfigure = BootLines.quartzAutoConfiguration().getPackageName();
        try {
            return (Class<Object>) Class.forName(autoconfigure + ".SchedulerFactoryBeanCustomizer");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An application's customizer (unordered, so after fenced's) that sets a job factory of its own. */
    private static Object replacingCustomizer() {
        return Proxy.newProxyInstance(QuartzLeaseTest.class.getClassLoader(), new Class<?>[] {customizerType()},
                (proxy, method, args) -> switch (method.getName()) {
                    case "customize" -> {
                        ((SchedulerFactoryBean) args[0]).setJobFactory(new SpringBeanJobFactory());
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "replacingCustomizer";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
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
