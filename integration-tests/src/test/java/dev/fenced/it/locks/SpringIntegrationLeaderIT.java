package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.LeaseManager;
import dev.fenced.it.locks.node.FencedNode;
import dev.fenced.it.locks.node.NightlyTotals;
import dev.fenced.it.locks.node.SchedulerLibrary;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.spring.integration.FencedLockRegistry;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's leader election ({@link LockRegistryLeaderInitiator}) over a {@link FencedLockRegistry} on
 * two nodes, each with its own pool, lease manager and initiator. The leader runs the nightly-totals job once per
 * term, on the initiator's thread (which holds the lock, so the token is bound there), then yields. Node A's first
 * term freezes after its read: its initiator loop is blocked, so its heartbeat (a {@code tryLock} by the holder,
 * which extends the lease) stops; the lease runs out and leadership moves to B. When B has led three times A
 * writes its late total: refused and counted; A's leadership is revoked; no two runs overlap; no lost update.
 */
class SpringIntegrationLeaderIT {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int RUNS = 12;

    private static TestDatabase db;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute(NightlyTotals.TABLE_DDL);
    }

    @Test
    void leadershipMovesWhenTheLeaderFreezesAndItsLateWriteIsRefused() throws Exception {
        JobAudit audit = new JobAudit(db, RUNS);
        CountDownLatch bLedThrice = new CountDownLatch(3);
        JobAudit.FreezeOnce freezeA = new JobAudit.FreezeOnce();

        try (Node a = new Node("a", audit, freezeA, null)) {
            a.leader.start();
            assertTrue(freezeA.awaitFrozen(), "node A never led");
            try (Node b = new Node("b", audit, () -> false, bLedThrice)) {
                b.leader.start();
                assertTrue(bLedThrice.await(30, TimeUnit.SECONDS), "leadership never moved to B");
                freezeA.resume();
                audit.awaitEnough();
            }
            assertTrue(a.revoked.get() >= 1, "A's leadership was revoked");
        }
        audit.assertOneLateWriteRefusedNoOverlapNoLostUpdate(db, SchedulerLibrary.SPRING_INTEGRATION.leaseName());
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
            assertFalse(
                    CompletableFuture.supplyAsync(
                                    () -> registry.obtain("orders").tryLock())
                            .get(),
                    "another thread does not get it");
            assertTrue(
                    assertThrows(
                                            CompletionException.class,
                                            () -> CompletableFuture.runAsync(lock::unlock)
                                                    .join())
                                    .getCause()
                            instanceof IllegalMonitorStateException,
                    "only the holder unlocks");
            lock.unlock();
            assertEquals(token, Fencing.currentToken().orElseThrow(), "still held once");
            registry.renewLock("orders");
            lock.unlock();
            assertFalse(Fencing.currentToken().isPresent(), "released: no token bound");
            assertTrue(
                    CompletableFuture.supplyAsync(() -> {
                                Lock other = registry.obtain("orders");
                                boolean got = other.tryLock();
                                other.unlock();
                                return got;
                            })
                            .get(),
                    "free for another thread");
        }
    }

    /**
     * Issue 25, item 3: the holder's lease ran out and another thread of the process took the lock; the holder's
     * unlock threw {@code IllegalMonitorStateException} (the lock had a new owner) and never closed its lease, so the
     * holder's thread kept the dead token bound. Now it throws the documented {@link ConcurrentModificationException},
     * closes its lease and leaves its thread with nothing bound.
     */
    @Test
    void unlockAfterTheLeaseRanOutThrowsConcurrentModificationAndUnbinds() throws Exception {
        try (HikariDataSource pool = Pools.fenced(db, 4, "fenced.tables=totals");
                LeaseManager leases =
                        LeaseManager.builder(pool).withoutRenewal().build();
                FencedLockRegistry registry = new FencedLockRegistry(leases, Duration.ofSeconds(1), "ran-out-")) {
            Lock lock = registry.obtain("job");
            assertTrue(lock.tryLock());
            assertTrue(Fencing.currentToken().isPresent());
            // nobody renews it: once the database lets it expire, another thread of this process takes the lock
            assertTrue(
                    CompletableFuture.supplyAsync(() -> {
                                try {
                                    boolean got = lock.tryLock(30, TimeUnit.SECONDS);
                                    if (got) {
                                        lock.unlock();
                                    }
                                    return got;
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return false;
                                }
                            })
                            .get(),
                    "another thread took the lock after the lease ran out");
            assertThrows(ConcurrentModificationException.class, lock::unlock);
            assertEquals(null, FencedTestExtension.boundCell(), "the holder's lease is closed and unbound");
            assertThrows(IllegalMonitorStateException.class, lock::unlock, "the hold is gone");
        }
    }

    /** One application instance: its pool, its lease manager (without renewal), its lock registry, its initiator. */
    static final class Node extends FencedNode {
        final FencedLockRegistry locks = new FencedLockRegistry(leases, TTL, "");
        final SchedulerLibrary.Leader leader;
        final AtomicInteger revoked = new AtomicInteger();

        Node(String name, JobAudit audit, BooleanSupplier freeze, CountDownLatch led) {
            // Without renewal only the initiator's heartbeat extends the lease: a leader stuck in its term loses it.
            super(db.fencedUrl("fenced.tables=totals"), 4, false);
            leader = new SchedulerLibrary.Leader(
                    locks, name, () -> audit.run(pool, freeze, led), revoked::incrementAndGet);
        }

        @Override
        public void close() {
            try {
                leader.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            super.close();
        }
    }
}
