package dev.fenced.example.nightly;

import dev.fenced.example.nightly.scenario.Scenario;
import dev.fenced.shedlock.FencedLockProvider;
import java.util.Arrays;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The seed's nightly totals as a Spring Boot service. Its one job ({@link NightlyTotalsJob}) runs on
 * {@code @Scheduled} under a ShedLock lock that is a fenced lease, so the writes it makes while it holds the lock
 * carry the lease's token and PostgreSQL refuses them once a newer holder has written.
 *
 * <p>{@code java -jar fenced-example-spring-boot-nightly.jar --scenario} does not start the service: it runs the
 * {@link Scenario}, two instances of this jar against one embedded PostgreSQL, the lock holder frozen with SIGSTOP.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class NightlyTotalsApplication {

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains(Scenario.FLAG)) {
            System.exit(Scenario.main(args));
        }
        SpringApplication.run(NightlyTotalsApplication.class, args);
    }

    /**
     * ShedLock's locks as fenced leases, in this application's database (table {@code fenced_lease}, created if
     * missing). Declared here rather than left to auto-configuration, so the example shows the one line it takes.
     */
    @Bean(destroyMethod = "close")
    FencedLockProvider lockProvider(DataSource dataSource) {
        return new FencedLockProvider(dataSource);
    }
}
