package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.spring.integration.FencedLockRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's leader election ({@link LockRegistryLeaderInitiator}) over a {@link FencedLockRegistry} on
 * two nodes, each with its own pool, lease manager and initiator. The leader runs the nightly-totals job once per
 * term, on the initiator's thread (which holds the lock, so the token is bound there), then yields. Node A's first
 * term freezes after its read: its initiator loop is blocked, so its heartbeat (a {@code tryLock} by the holder,
 * which extends the lease) stops; the lease runs out and leadership moves to B. When B has led three times A
 * writes its late total: refused and counted; A's leadership is revoked; no two runs overlap; no lost update.
 */
class SpringIntegrationLeaderTest {

    private static final String ROLE = "nightly-totals";
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int RUNS = 12;

    private static TestDatabase db;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute(JobAudit.TABLE_DDL);
    }

    @Test
    void leadershipMovesWhenTheLeaderFreezesAndItsLateWriteIsRefused() throws Exception {
        JobAudit audit = new JobAudit(db, RUNS);
        CountDownLatch aRead = new CountDownLatch(1);
        CountDownLatch bLedThrice = new CountDownLatch(3);
        CountDownLatch resumeA = new CountDownLatch(1);
        AtomicBoolean aFrozenOnce = new AtomicBoolean();
        BooleanSupplier freezeA = () -> {
            if (aFrozenOnce.compareAndSet(false, true)) {
                aRead.countDown();
                JobAudit.await(resumeA);
                return true;
            }
            return false;
        };

        try (Node a = new Node("a", audit, freezeA, null)) {
            a.initiator.start();
            assertTrue(aRead.await(30, TimeUnit.SECONDS), "node A never led");
            try (Node b = new Node("b", audit, () -> false, bLedThrice)) {
                b.initiator.start();
                assertTrue(bLedThrice.await(30, TimeUnit.SECONDS), "leadership never moved to B");
                resumeA.countDown();
                audit.awaitEnough();
            }
            assertTrue(a.revoked.get() >= 1, "A's leadership was revoked");
        }
        audit.assertOneLateWriteRefusedNoOverlapNoLostUpdate(db, ROLE);
    }

    /** A held lock is exclusive, reentrant for its holder, binds its token to the holder's thread only. */
    @Test
    void aHeldLockIsExclusiveReentrantAndBindsItsToken() throws Exception {
        try (HikariDataSource pool = Pools.fenced(db, 4, "fenced.tables=totals");
             FencedLockRegistry registry = new FencedLockRegistry(pool)) {
            Lock lock = registry.obtain("orders");
            assertFalse(Fencing.currentToken().isPresent());
            assertTrue(lock.tryLock());
            long token = Fencing.currentToken().orElseThrow();
            assertTrue(lock.tryLock(), "reentrant");
            assertFalse(CompletableFuture.supplyAsync(() -> registry.obtain("orders").tryLock()).get(),
                    "another thread does not get it");
            assertTrue(assertThrows(CompletionException.class, () -> CompletableFuture.runAsync(lock::unlock).join())
                    .getCause() instanceof IllegalMonitorStateException, "only the holder unlocks");
            lock.unlock();
            assertEquals(token, Fencing.currentToken().orElseThrow(), "still held once");
            registry.renewLock("orders");
            lock.unlock();
            assertFalse(Fencing.currentToken().isPresent(), "released: no token bound");
            assertTrue(CompletableFuture.supplyAsync(() -> {
                Lock other = registry.obtain("orders");
                boolean got = other.tryLock();
                other.unlock();
                return got;
            }).get(), "free for another thread");
        }
    }

    /** One application instance: its pool, its lock registry, its leader initiator. */
    static final class Node implements AutoCloseable {
        final HikariDataSource pool = JobAudit.warmedUp(Pools.fenced(db, 4, "fenced.tables=totals"));
        final LeaseManager leases = LeaseManager.builder(pool).withoutRenewal().build();
        final FencedLockRegistry locks = new FencedLockRegistry(leases, TTL, "");
        final LockRegistryLeaderInitiator initiator;
        final AtomicInteger revoked = new AtomicInteger();

        Node(String name, JobAudit audit, BooleanSupplier freeze, CountDownLatch led) {
            initiator = new LockRegistryLeaderInitiator(locks, new DefaultCandidate(name, ROLE) {
                @Override
                public void onGranted(Context context) {
                    audit.run(pool, freeze, led);
                    context.yield(); // one run per term: let the nodes take turns
                }

                @Override
                public void onRevoked(Context context) {
                    revoked.incrementAndGet();
                }
            });
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(20);
        }

        @Override
        public void close() {
            initiator.stop();
            leases.close();
            pool.close();
        }
    }
}
