package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.Fencing;
import dev.fenced.spring.FencedAutoConfiguration;
import dev.fenced.spring.integration.FencedLockRegistry;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;

/** Spring Integration on the class path: a FencedLockRegistry unless the application has a LockRegistry. */
class SpringIntegrationLockTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedAutoConfiguration.class))
            .withPropertyValues("fenced.tables=totals", "fenced.missing-tables=warn")
            .withBean(DataSource.class, TestDataSources::fresh);

    @Test
    void aLockHeldIsALeaseItsTokenBoundToTheHolder() {
        runner.run(context -> {
            var registry = context.getBean(LockRegistry.class); // var: generic in Spring Integration 7, not in 6.5
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

    /**
     * Spring Integration 7's RenewableLockRegistry asks for {@code renewLock(key, ttl)} (a leader initiator or a
     * renewal scheduler calls it through the interface); 6.5's has no such method, so the test needs 7.
     */
    @Test
    void onSpringIntegration7RenewLockWithATtlMakesTheLockLastThatLong() {
        Method renewWithTtl = renewLockWithTtl();
        assumeTrue(renewWithTtl != null, "Spring Integration 6.5: RenewableLockRegistry has no renewLock(key, ttl)");
        runner.run(context -> {
            var registry = context.getBean(LockRegistry.class); // var: generic in Spring Integration 7, not in 6.5
            Lock lock = registry.obtain("orders");
            assertTrue(lock.tryLock());
            try {
                renewWithTtl.invoke(registry, "orders", Duration.ofMinutes(5));
                Double left = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                        "SELECT extract(epoch FROM expires_at - now()) FROM fenced_lease WHERE name = 'orders'",
                        Double.class);
                assertTrue(left != null && left > 60, "the lock lasts the ttl asked for (5 min), not the registry's"
                        + " 10 s: " + left + " s left");
            } finally {
                lock.unlock();
            }
        });
    }

    private static Method renewLockWithTtl() {
        try {
            return RenewableLockRegistry.class.getMethod("renewLock", Object.class, Duration.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    @Test
    void anApplicationsOwnLockRegistryIsKept() {
        var own = new DefaultLockRegistry(); // var: LockRegistry is generic in 7, not in 6.5
        runner.withBean("ownLockRegistry", LockRegistry.class, () -> own).run(context -> {
            assertSame(own, context.getBean(LockRegistry.class));
            assertFalse(context.containsBean("fencedLockRegistry"));
            assertFalse(context.containsBean("fencedLockRegistryLeases"));
        });
    }
}
