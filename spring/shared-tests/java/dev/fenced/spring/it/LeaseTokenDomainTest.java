package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.fenced.Fencing;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.spring.lease.NonRenewingLeases;
import dev.fenced.spring.FencedAutoConfiguration;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code fenced.lease.token-domain}: the starter's leases (its LeaseManager and the lock libraries' non-renewing
 * ones) bind their tokens in that domain, for one lease over several databases; without it, in {@code fenced}.
 */
class LeaseTokenDomainTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn")
            .withBean(DataSource.class, TestDataSources::fresh);

    /** The domain a lease of {@code leases} binds on this thread. */
    private static Optional<String> domainOfALease(LeaseManager leases, String name) throws SQLException {
        try (Lease lease = leases.tryAcquire(name, Duration.ofSeconds(10)).orElseThrow()) {
            return Fencing.currentTokenDomain();
        }
    }

    @Test
    void theStartersLeasesBindTheConfiguredDomain() {
        runner.withPropertyValues("fenced.lease.token-domain=nightly").run(context -> {
            assertEquals(Optional.of("nightly"), domainOfALease(context.getBean(LeaseManager.class), "a"));
            NonRenewingLeases shedLock = context.getBean("fencedShedLockLeases", NonRenewingLeases.class);
            assertEquals(Optional.of("nightly"), domainOfALease(shedLock.leaseManager(), "b"));
        });
    }

    @Test
    void withoutItTheyBindFencedsOwnDomain() {
        runner.run(context -> assertEquals(
                Optional.of(Fencing.FENCED_DOMAIN), domainOfALease(context.getBean(LeaseManager.class), "a")));
    }

    @Test
    void aBadDomainFailsStartUp() {
        runner.withPropertyValues("fenced.lease.token-domain=no spaces please")
                .run(context -> assertNotNull(context.getStartupFailure()));
    }
}
