package dev.fenced.spring.it.app;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small Boot application: JdbcTemplate, Spring Data JPA, Flyway, Actuator, a lease-bound job, a config-listed
 * job, an @Async bean, a ShedLock-scheduled job (no LockProvider of its own: the starter's).
 */
// db-scheduler is on the test class path for DbSchedulerLeaseTest; this application has no scheduled_tasks table.
@SpringBootApplication(excludeName = {
        "com.github.kagkarlsson.scheduler.boot.autoconfigure.DbSchedulerAutoConfiguration",
        "com.github.kagkarlsson.scheduler.boot.autoconfigure.DbSchedulerMetricsAutoConfiguration",
        "com.github.kagkarlsson.scheduler.boot.autoconfigure.DbSchedulerActuatorAutoConfiguration"})
@EnableAsync
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class TestApp {
}
