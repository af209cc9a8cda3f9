package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.shedlock.FencedLockProvider;
import dev.fenced.spring.FencedAutoConfiguration;
import java.util.Optional;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's FencedLockProvider is a default: an application's own LockProvider is kept, and ours is not made. */
class ShedLockBackOffTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn")
            .withBean(DataSource.class, TestDataSources::fresh);

    @Test
    void withoutALockProviderOfItsOwnTheApplicationGetsTheFencedOne() {
        runner.run(context -> assertTrue(context.getBean(LockProvider.class) instanceof FencedLockProvider));
    }

    @Test
    void anApplicationsOwnLockProviderIsKept() {
        LockProvider own = configuration -> Optional.empty();
        runner.withBean("ownLockProvider", LockProvider.class, () -> own).run(context -> {
            assertSame(own, context.getBean(LockProvider.class));
            assertFalse(context.containsBean("fencedLockProvider"));
            assertFalse(context.containsBean("fencedShedLockLeases"));
        });
    }
}
