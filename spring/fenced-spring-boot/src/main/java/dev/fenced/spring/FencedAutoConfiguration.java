package dev.fenced.spring;

import dev.fenced.FencedDataSource;
import dev.fenced.LeaseManager;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.spring.dao.JdbcTranslationPostProcessor;
import dev.fenced.internal.spring.dao.JpaTranslationPostProcessor;
import dev.fenced.internal.spring.datasource.FencedDataSourcePostProcessor;
import dev.fenced.internal.spring.lease.LeaseAdvisor;
import dev.fenced.internal.spring.lease.LeaseAutoProxyRegistrar;
import dev.fenced.internal.spring.lease.LeaseInterceptor;
import dev.fenced.internal.spring.lease.LeaseMethods;
import dev.fenced.internal.spring.lease.LeaseMethodsCheck;
import dev.fenced.internal.spring.lease.NonRenewingLeases;
import dev.fenced.internal.spring.metrics.FencedMeterBinder;
import dev.fenced.internal.spring.migration.UnfencedMigrationsPostProcessor;
import dev.fenced.spring.config.FencedSettings;
import dev.fenced.spring.dao.FencedPersistenceExceptionTranslator;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;

/**
 * fenced for a Spring Boot application, Boot 4 and 3.5 alike: everything here uses APIs both lines share; what
 * Boot 4 moved (health) has one auto-configuration per line, each behind {@code @ConditionalOnClass}.
 *
 * <ul>
 * <li>{@code fenced.*} keys from the Spring environment, validated at start-up by the driver's own checks;</li>
 * <li>the application's DataSource fenced in place (no URL change), or left alone when its URL is fenced;</li>
 * <li>fenced's refusals translated for JdbcTemplate and JPA (Hibernate's dialect decorated);</li>
 * <li>{@link WithLease} and {@code fenced.lease.<name>.method} through Spring AOP, on the driver's LeaseManager;</li>
 * <li>the token carried into Spring's executors, {@code @Async} and Reactor (Micrometer context propagation);</li>
 * <li>ShedLock's {@code @SchedulerLock} on fenced leases when ShedLock is present and no LockProvider is defined;</li>
 * <li>Quartz jobs, db-scheduler executions and Spring Integration locks on fenced leases when those are present;</li>
 * <li>Flyway and Liquibase migrations unfenced; fenced's counters in the application's MeterRegistry.</li>
 * </ul>
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
        }) // Boot 4
@ConditionalOnClass(DataSource.class)
public class FencedAutoConfiguration {

    /**
     * Created eagerly, so bad configuration fails start-up even before anything connects. Infrastructure, as Spring
     * asks of what a post-processor needs before all post-processors exist: the lease advisor (through
     * {@link LeaseMethods}) reads it as soon as the auto-proxy creator looks for advisors, which it does while later
     * post-processors are still being created; a settings value has nothing to be post-processed for.
     */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static FencedSettings fencedSettings(Environment environment) {
        return FencedSettings.from(environment);
    }

    @Bean
    public static FencedDataSourcePostProcessor fencedDataSourcePostProcessor(ObjectProvider<FencedSettings> settings) {
        return new FencedDataSourcePostProcessor(settings);
    }

    @Bean
    public static UnfencedMigrationsPostProcessor fencedMigrationsPostProcessor(
            ObjectProvider<FencedSettings> settings) {
        return new UnfencedMigrationsPostProcessor(settings);
    }

    /** Lease store: {@code fenced.lease.url} if set, else the application's DataSource. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(DataSource.class)
    public LeaseManager fencedLeaseManager(FencedSettings settings, ObjectProvider<DataSource> dataSources) {
        FencedConfig config = settings.config();
        return LeaseManager.builder(leaseStore(config, dataSources, "a LeaseManager"))
                .table(config.leaseTable())
                .createTable(config.leaseCreateTable())
                .tokenDomain(config.leaseTokenDomain())
                .build();
    }

    /**
     * The lease store on {@code fenced.lease.url}. It writes only the lease table, so a plain {@code jdbc:postgresql:}
     * URL is opened with {@code fenced.mode=off} (it lists no protected tables, which a fenced connection refuses); a
     * {@code jdbc:fenced:} URL is taken as it is.
     */
    private static DataSource leaseUrlStore(String url) {
        FencedDataSource store = new FencedDataSource(url);
        if (!url.startsWith("jdbc:fenced:")) {
            store.setMode("off");
        }
        return store;
    }

    /** Where leases live: {@code fenced.lease.url} if set, else the application's (fenced) DataSource. */
    static DataSource leaseStore(FencedConfig config, ObjectProvider<DataSource> dataSources, String orDefine) {
        DataSource store = config.leaseUrl() != null ? leaseUrlStore(config.leaseUrl()) : dataSources.getIfUnique();
        if (store == null) {
            throw new IllegalStateException("fenced: the application has several DataSources and fenced.lease.url is"
                    + " not set: set it, or define " + orDefine + " bean, so leases live in one place");
        }
        return store;
    }

    /** Lease-bound methods: {@code @WithLease}, and the configured ones unless the agent runs those itself. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static LeaseMethods fencedLeaseMethods(ObjectProvider<FencedSettings> settings) {
        FencedConfig config = settings.getObject().config();
        Collection<LeaseMethod> configured =
                agentRunsLeaseMethods() ? List.of() : config.leaseMethods().values();
        return new LeaseMethods(configured);
    }

    /**
     * True when the java agent instruments the configured lease methods itself. An agent that only propagates (the
     * driver was not on the class path at its start: a fat jar) leaves them to AOP; running them under both would
     * make each find the lease busy with the other.
     */
    static boolean agentRunsLeaseMethods() {
        if (!ContextAccess.sharedThroughBootstrap()) {
            return false;
        }
        try {
            Class<?> gate = Class.forName("dev.fenced.internal.agent.bootstrap.LeaseGate", false, null);
            return (Boolean) gate.getMethod("installed").invoke(null);
        } catch (ClassNotFoundException e) {
            return false;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "fenced: cannot tell whether the java agent runs the configured lease"
                            + " methods (an agent of another version?): " + e,
                    e);
        }
    }

    @Bean
    public static LeaseMethodsCheck fencedLeaseMethodsCheck(LeaseMethods methods, ListableBeanFactory beans) {
        return new LeaseMethodsCheck(methods, beans);
    }

    @Configuration(proxyBeanMethods = false)
    @Import(LeaseAutoProxyRegistrar.class)
    static class Leases {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static LeaseAdvisor fencedLeaseAdvisor(LeaseMethods methods, ObjectProvider<LeaseManager> leases) {
            return new LeaseAdvisor(methods, new LeaseInterceptor(methods, leases));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.jdbc.support.JdbcAccessor")
    static class Jdbc {

        @Bean
        static JdbcTranslationPostProcessor fencedJdbcTranslation() {
            return new JdbcTranslationPostProcessor();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.dao.support.PersistenceExceptionTranslator")
    static class Persistence {

        @Bean
        static FencedPersistenceExceptionTranslator fencedPersistenceExceptionTranslator() {
            return new FencedPersistenceExceptionTranslator();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.orm.jpa.AbstractEntityManagerFactoryBean")
    static class Jpa {

        @Bean
        static JpaTranslationPostProcessor fencedJpaTranslation() {
            return new JpaTranslationPostProcessor();
        }
    }

    /**
     * ShedLock on the class path and no LockProvider of the application's: {@code @SchedulerLock} methods run
     * under fenced leases ({@code dev.fenced.shedlock.FencedLockProvider}), their writes carrying the token.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"net.javacrumbs.shedlock.core.LockProvider", "dev.fenced.shedlock.FencedLockProvider"})
    @ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
    @ConditionalOnBean(DataSource.class)
    static class ShedLock {

        @Bean(destroyMethod = "close")
        NonRenewingLeases fencedShedLockLeases(FencedSettings settings, ObjectProvider<DataSource> dataSources) {
            return new NonRenewingLeases(
                    leaseStore(settings.config(), dataSources, "a LockProvider"), settings.config());
        }

        @Bean
        dev.fenced.shedlock.FencedLockProvider fencedLockProvider(
                @Qualifier("fencedShedLockLeases") NonRenewingLeases fencedShedLockLeases) {
            return new dev.fenced.shedlock.FencedLockProvider(fencedShedLockLeases.leaseManager());
        }
    }

    /**
     * Quartz and fenced-quartz on the class path: the jobs of Boot's SchedulerFactoryBean run under fenced leases,
     * {@code quartz:<group>.<name>}, through a SchedulerFactoryBeanCustomizer (Boot's hook for it; one class per
     * Boot line, as the interface moved); {@code fenced.spring.quartz.enabled=false} turns it off.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.quartz.Scheduler",
                "org.springframework.scheduling.quartz.SchedulerFactoryBean",
                "dev.fenced.quartz.FencedJobFactory"
            })
    @ConditionalOnBean(DataSource.class)
    static class Quartz {

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.boot.autoconfigure.quartz.SchedulerFactoryBeanCustomizer")
        static class Boot3 {

            @Bean
            dev.fenced.internal.spring.quartz.boot3.FencedSchedulerFactoryBeanCustomizer fencedSchedulerCustomizer(
                    ObjectProvider<FencedSettings> settings,
                    ObjectProvider<LeaseManager> leases,
                    ObjectProvider<org.quartz.spi.JobFactory> jobFactories) {
                return new dev.fenced.internal.spring.quartz.boot3.FencedSchedulerFactoryBeanCustomizer(
                        settings, leases, jobFactories);
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.boot.quartz.autoconfigure.SchedulerFactoryBeanCustomizer")
        static class Boot4 {

            @Bean
            dev.fenced.internal.spring.quartz.boot4.FencedSchedulerFactoryBeanCustomizer fencedSchedulerCustomizer(
                    ObjectProvider<FencedSettings> settings,
                    ObjectProvider<LeaseManager> leases,
                    ObjectProvider<org.quartz.spi.JobFactory> jobFactories) {
                return new dev.fenced.internal.spring.quartz.boot4.FencedSchedulerFactoryBeanCustomizer(
                        settings, leases, jobFactories);
            }
        }
    }

    /**
     * db-scheduler and fenced-db-scheduler on the class path: every execution runs under lease
     * {@code db-scheduler:<task>/<instance id>}. db-scheduler's Boot starters (Boot 3 and Boot 4 alike) hand every
     * ExecutionInterceptor bean to the scheduler they build.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "com.github.kagkarlsson.scheduler.event.ExecutionInterceptor",
                "dev.fenced.dbscheduler.FencedExecutionInterceptor"
            })
    @ConditionalOnMissingBean(type = "dev.fenced.dbscheduler.FencedExecutionInterceptor")
    @ConditionalOnBean(DataSource.class)
    static class DbScheduler {

        /** Renewed every ttl/3 while the execution runs; a frozen node's lease runs out after it. */
        static final Duration TTL = Duration.ofSeconds(30);

        @Bean
        dev.fenced.dbscheduler.FencedExecutionInterceptor fencedExecutionInterceptor(LeaseManager leases) {
            return new dev.fenced.dbscheduler.FencedExecutionInterceptor(leases, TTL);
        }
    }

    /**
     * Spring Integration and fenced-spring-integration on the class path and no LockRegistry of the application's:
     * a {@code FencedLockRegistry}, its locks fenced leases lasting {@code FencedLockRegistry.DEFAULT_TTL} unless
     * renewed, as JdbcLockRegistry's.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.integration.support.locks.LockRegistry",
                "dev.fenced.spring.integration.FencedLockRegistry"
            })
    @ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
    @ConditionalOnBean(DataSource.class)
    static class SpringIntegration {

        @Bean(destroyMethod = "close")
        NonRenewingLeases fencedLockRegistryLeases(FencedSettings settings, ObjectProvider<DataSource> dataSources) {
            return new NonRenewingLeases(
                    leaseStore(settings.config(), dataSources, "a LockRegistry"), settings.config());
        }

        @Bean
        dev.fenced.spring.integration.FencedLockRegistry fencedLockRegistry(
                @Qualifier("fencedLockRegistryLeases") NonRenewingLeases fencedLockRegistryLeases) {
            return new dev.fenced.spring.integration.FencedLockRegistry(
                    fencedLockRegistryLeases.leaseManager(),
                    dev.fenced.spring.integration.FencedLockRegistry.DEFAULT_TTL,
                    "");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class Metrics {

        @Bean
        FencedMeterBinder fencedMeterBinder() {
            return new FencedMeterBinder();
        }
    }

    /** Spring's own decorator, which carries every registered ThreadLocalAccessor, fenced's among them. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "io.micrometer.context.ContextSnapshotFactory",
                "org.springframework.core.task.support.ContextPropagatingTaskDecorator"
            })
    static class ContextPropagation {

        @Bean
        @ConditionalOnMissingBean(TaskDecorator.class)
        TaskDecorator fencedTaskDecorator() {
            return new org.springframework.core.task.support.ContextPropagatingTaskDecorator();
        }
    }
}
