package dev.fenced.spring.it.app;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small Boot application: JdbcTemplate, Spring Data JPA, Flyway, Actuator, a lease-bound job, a config-listed
 * job, an @Async bean, a ShedLock-scheduled job (no LockProvider of its own: the starter's).
 */
@SpringBootApplication
@EnableAsync
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class TestApp {
}
