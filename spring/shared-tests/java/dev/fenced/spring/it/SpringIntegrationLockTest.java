package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.spring.FencedAutoConfiguration;
import dev.fenced.spring.integration.FencedLockRegistry;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** Spring Integration on the class path: a FencedLockRegistry unless the application has a LockRegistry. */
class SpringIntegrationLockTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn")
            .withBean(DataSource.class, TestDataSources::fresh);

    @Test
    void aLockHeldIsALeaseItsTokenBoundToTheHolder() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            assertTrue(registry instanceof FencedLockRegistry, registry.getClass().getName());
            Lock lock = registry.obtain("orders");
            assertTrue(lock.tryLock());
            try {
                assertTrue(Fencing.currentToken().orElse(-1) > 0, "no fencing token bound while the lock is held");
            } finally {
                lock.unlock();
            }
            assertFalse(Fencing.currentToken().isPresent(), "the token outlived the lock");
        });
    }

    @Test
    void anApplicationsOwnLockRegistryIsKept() {
        LockRegistry own = new DefaultLockRegistry();
        runner.withBean("ownLockRegistry", LockRegistry.class, () -> own).run(context -> {
            assertSame(own, context.getBean(LockRegistry.class));
            assertFalse(context.containsBean("fencedLockRegistry"));
            assertFalse(context.containsBean("fencedLockRegistryLeases"));
        });
    }
}
