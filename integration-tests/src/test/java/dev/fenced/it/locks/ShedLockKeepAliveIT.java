package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.shedlock.FencedLockProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import net.javacrumbs.shedlock.support.ShortKeepAlive;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's KeepAliveLockProvider over FencedLockProvider: a job running three times its lockAtMostFor keeps its
 * lease through ShedLock's extensions; another node cannot take the lock meanwhile, and the job's late write
 * still carries a valid token and lands.
 */
class ShedLockKeepAliveIT {

    @Test
    void keepAliveExtendsTheLeaseAndTheLongJobStillWrites() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)",
                "INSERT INTO totals VALUES (77, 0, NULL)");
        // Not shorter: an extension gets half the time left to the deadline (at least 100 ms), and a first statement
        // on a loaded two-core CI machine can take longer than that; it then fails, and the lease runs out (closed).
        Duration atMost = Duration.ofSeconds(1);
        ScheduledExecutorService keepAliveThread = Executors.newSingleThreadScheduledExecutor();
        try (HikariDataSource poolA = Pools.fenced(db, 2, "fenced.tables=totals");
                HikariDataSource poolB = Pools.fenced(db, 2, "fenced.tables=totals");
                FencedLockProvider a = new FencedLockProvider(poolA);
                FencedLockProvider b = new FencedLockProvider(poolB)) {
            // The first lock creates the lease table and opens the pool's connections: on a loaded machine that can
            // take longer than lockAtMostFor, and ShedLock's keep-alive then gives up before its first extension.
            a.lock(new LockConfiguration(Instant.now(), "warm-up", atMost, Duration.ZERO))
                    .orElseThrow()
                    .unlock();
            Semaphore extended = new Semaphore(0);
            KeepAliveLockProvider keepAlive = ShortKeepAlive.of(
                    configuration -> a.lock(configuration).map(lock -> reporting(lock, extended)), keepAliveThread);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            CompletableFuture<Integer> job = CompletableFuture.supplyAsync(() -> {
                try {
                    return new DefaultLockingTaskExecutor(keepAlive)
                            .executeWithLock(
                                    () -> {
                                        started.countDown();
                                        assertTrue(finish.await(30, TimeUnit.SECONDS));
                                        try (Connection c = poolA.getConnection();
                                                PreparedStatement ps = c.prepareStatement(
                                                        "UPDATE totals SET amount = 1 WHERE restaurant_id = 77")) {
                                            return ps.executeUpdate();
                                        }
                                    },
                                    new LockConfiguration(Instant.now(), "long-job", atMost, Duration.ZERO))
                            .getResult();
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(started.await(30, TimeUnit.SECONDS));
            long renewed = FencedStats.counters().get("fenced.leases.renewed");
            // Past 2.5 lockAtMostFor periods: five of ShedLock's own extensions, scheduled at a fixed rate of
            // lockAtMostFor / 2. After each, the other node is refused the lock.
            for (int i = 1; i <= 5; i++) {
                assertTrue(extended.tryAcquire(30, TimeUnit.SECONDS), "extension " + i + " did not come");
                assertTrue(
                        b.lock(new LockConfiguration(Instant.now(), "long-job", atMost, Duration.ZERO))
                                .isEmpty(),
                        "another node took the lock while the job was kept alive (after extension " + i + ")");
            }
            assertTrue(FencedStats.counters().get("fenced.leases.renewed") >= renewed + 5, "extensions");
            finish.countDown();
            assertEquals(1, job.get(30, TimeUnit.SECONDS), "the kept-alive job's write lands");
        } finally {
            keepAliveThread.shutdownNow();
        }
    }

    /** {@code lock}, releasing a permit on {@code extended} after each extension it (or what it extends to) tries. */
    private static SimpleLock reporting(SimpleLock lock, Semaphore extended) {
        return new SimpleLock() {
            @Override
            public void unlock() {
                lock.unlock();
            }

            @Override
            public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
                try {
                    return lock.extend(lockAtMostFor, lockAtLeastFor).map(n -> reporting(n, extended));
                } finally {
                    extended.release();
                }
            }
        };
    }
}
