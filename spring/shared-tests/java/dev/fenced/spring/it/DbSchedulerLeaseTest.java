package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.kagkarlsson.scheduler.boot.autoconfigure.DbSchedulerAutoConfiguration;
import com.github.kagkarlsson.scheduler.task.Task;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import dev.fenced.LeaseManager;
import dev.fenced.dbscheduler.FencedExecutionInterceptor;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.spring.FencedAutoConfiguration;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * db-scheduler on the class path: the starter's FencedExecutionInterceptor bean is handed by db-scheduler's own Boot
 * starter to the scheduler it builds, so a task runs under a fenced lease; an application's own interceptor is kept.
 */
class DbSchedulerLeaseTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedAutoConfiguration.class, DbSchedulerAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn",
                    "db-scheduler.polling-interval=100ms")
            .withBean(DataSource.class, DbSchedulerLeaseTest::withTasksTable)
            .withUserConfiguration(ProbeTask.class);

    @Test
    void aTaskRunsUnderItsLease() {
        runner.run(context -> {
            assertTrue(context.getBean(FencedExecutionInterceptor.class) != null);
            assertTrue(context.getBean(TokenProbe.class).tokenOfTheRun() > 0,
                    "the task ran without a fencing token: the interceptor did not reach the scheduler");
        });
    }

    @Test
    void anApplicationsOwnInterceptorIsKept() {
        runner.withUserConfiguration(OwnInterceptor.class).run(context -> {
            assertEquals(1, context.getBeansOfType(FencedExecutionInterceptor.class).size());
            assertSame(context.getBean("ownInterceptor"), context.getBean(FencedExecutionInterceptor.class));
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class ProbeTask {

        @Bean
        TokenProbe tokenProbe() {
            return new TokenProbe();
        }

        /** Recurring: the starter schedules its first run for now. */
        @Bean
        Task<Void> probeTask(TokenProbe probe) {
            return Tasks.recurring("fenced-probe", FixedDelay.ofHours(1)).execute((instance, ctx) -> probe.record());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnInterceptor {

        @Bean
        FencedExecutionInterceptor ownInterceptor(LeaseManager leases) {
            return new FencedExecutionInterceptor(leases, Duration.ofSeconds(10));
        }
    }

    private static DataSource withTasksTable() {
        TestDatabase db = TestDatabase.create();
        // db-scheduler's PostgreSQL table (its tables.sql)
        db.execute("""
                CREATE TABLE scheduled_tasks (
                  task_name text NOT NULL, task_instance text NOT NULL, task_data bytea,
                  execution_time timestamptz NOT NULL, picked boolean NOT NULL, picked_by text,
                  last_success timestamptz, last_failure timestamptz, consecutive_failures int,
                  last_heartbeat timestamptz, version bigint NOT NULL, priority smallint,
                  PRIMARY KEY (task_name, task_instance))""");
        return TestDataSources.on(db);
    }
}
