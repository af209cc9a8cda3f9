package dev.fenced.spring.it.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableAsync;

/** A small Boot application: JdbcTemplate, Flyway, Actuator, a lease-bound job, a config-listed job, an @Async bean. */
@SpringBootApplication
@EnableAsync
public class TestApp {
}
