package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.UnfencedWriteException;
import dev.fenced.internal.lease.LeaseRegistry;
import dev.fenced.it.support.FencedTestExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** While a lease is open its token is the acquiring thread's; close gives back exactly what was there. */
@Tag("jvm-sensitive")
class LeaseBindingIT extends LeaseDatabase {

    @Test
    void leasesBindAndCloseRestoresTheOuterBindingInNestingOrder() throws Exception {
        try (LeaseManager leases = LeaseManager.create(pool);
                FencingScope outer = Fencing.bind(7)) {
            try (Lease a =
                    leases.tryAcquire("outer-job", Duration.ofSeconds(30)).orElseThrow()) {
                assertEquals(OptionalLong.of(a.token()), Fencing.currentToken());
                assertTrue(
                        List.of(LeaseRegistry.nameOf(a.token()).split(" or ")).contains("outer-job"));
                try (Lease b =
                        leases.tryAcquire("inner-job", Duration.ofSeconds(30)).orElseThrow()) {
                    assertEquals(OptionalLong.of(b.token()), Fencing.currentToken());
                }
                assertEquals(OptionalLong.of(a.token()), Fencing.currentToken());
            }
            assertEquals(OptionalLong.of(7), Fencing.currentToken());
        }
        assertEquals(OptionalLong.empty(), Fencing.currentToken());
    }

    @Test
    void closeIsIdempotentReleasesTheRowAndDoesNotRunOnLost() throws Exception {
        try (LeaseManager leases = LeaseManager.create(pool)) {
            Lease lease = leases.tryAcquire("closing", Duration.ofSeconds(30)).orElseThrow();
            AtomicBoolean lostCalled = new AtomicBoolean();
            lease.onLost(l -> lostCalled.set(true));
            lease.close();
            lease.close();
            assertFalse(lease.isValid());
            assertEquals(
                    0, db.queryLong("SELECT count(*) FROM fenced_lease WHERE name = 'closing' AND expires_at > now()"));
            // Tokens are per store, and this JVM's test databases all count from 1: other leases may share it.
            assertTrue(
                    List.of(LeaseRegistry.nameOf(lease.token()).split(" or ")).contains("closing"),
                    "recently ended leases keep their name: " + LeaseRegistry.nameOf(lease.token()));
            Lease again = leases.tryAcquire("closing", Duration.ofSeconds(30)).orElseThrow();
            again.close();
            assertFalse(lostCalled.get(), "a normal close is not a loss");
        }
    }

    /**
     * Closed elsewhere, the lease is released but the acquiring thread's binding is left alone; the token
     * in it is poisoned, so that thread's protected writes fail instead of going out under a released lease.
     */
    @Test
    void closeOnAnotherThreadReleasesButLeavesTheBindingPoisoned() throws Exception {
        try (LeaseManager leases = LeaseManager.create(pool)) {
            Lease lease =
                    leases.tryAcquire("handed-over", Duration.ofSeconds(30)).orElseThrow();
            CompletableFuture.runAsync(lease::close).get();
            assertEquals(
                    0,
                    db.queryLong(
                            "SELECT count(*) FROM fenced_lease WHERE name = 'handed-over' AND expires_at > now()"));
            assertEquals(OptionalLong.empty(), Fencing.currentToken());
            assertTrue(
                    FencedTestExtension.boundCell() != null
                            && FencedTestExtension.boundCell().get() == -lease.token(),
                    "the cell stays bound, poisoned");
        }
    }

    /**
     * Issue 25, item 3: the manager closed on another thread first ends the lease there, where the acquiring
     * thread's binding cannot be touched; the lease's own close on the acquiring thread afterwards still unbinds it.
     */
    @Test
    void theLeasesOwnCloseUnbindsItAfterTheManagerWasClosedOnAnotherThread() throws Exception {
        LeaseManager leases = LeaseManager.create(pool);
        Lease lease =
                leases.tryAcquire("closed-elsewhere", Duration.ofSeconds(30)).orElseThrow();
        CompletableFuture.runAsync(leases::close).get();
        assertFalse(lease.isValid());
        assertTrue(FencedTestExtension.boundCell() != null, "the manager's close could not unbind this thread");
        lease.close();
        assertEquals(null, FencedTestExtension.boundCell(), "the lease's own close unbinds its acquiring thread");
        assertEquals(OptionalLong.empty(), Fencing.currentToken());
    }

    /**
     * Issue 25, item 3: a pooled thread whose lease's manager was closed elsewhere before the lease's own close ran
     * its next, unrelated task with the dead token bound: refused as a lost lease instead of as a write with no token.
     */
    @Test
    void aPooledThreadsNextTaskHasNoTokenAfterTheManagerClosedElsewhere() throws Exception {
        db.execute(
                "CREATE TABLE IF NOT EXISTS pooled (id int PRIMARY KEY, last_token bigint)",
                "INSERT INTO pooled VALUES (1, NULL) ON CONFLICT DO NOTHING");
        String url = db.fencedUrl("fenced.tables=pooled");
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            LeaseManager leases = LeaseManager.create(pool);
            CountDownLatch acquired = new CountDownLatch(1);
            CountDownLatch managerClosed = new CountDownLatch(1);
            var job = worker.submit(() -> {
                try (Lease lease =
                        leases.tryAcquire("pooled-job", Duration.ofSeconds(30)).orElseThrow()) {
                    acquired.countDown();
                    managerClosed.await();
                }
                return null;
            });
            acquired.await();
            leases.close(); // on the test thread, while the job still holds its lease
            managerClosed.countDown();
            job.get();
            var next = worker.submit(() -> {
                try (Connection c = DriverManager.getConnection(url);
                        Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE pooled SET id = 1");
                }
                return null;
            });
            var e = assertThrows(ExecutionException.class, next::get);
            assertTrue(
                    e.getCause() instanceof UnfencedWriteException,
                    "the next task runs with no token: " + e.getCause());
        } finally {
            worker.shutdownNow();
        }
    }

    @Test
    void closingTheManagerReleasesEverythingAndRefusesNewLeases() throws Exception {
        LeaseManager leases = LeaseManager.create(pool);
        Lease a = leases.tryAcquire("m-a", Duration.ofSeconds(30)).orElseThrow();
        Lease b = leases.tryAcquire("m-b", Duration.ofSeconds(30)).orElseThrow();
        leases.close();
        assertFalse(a.isValid());
        assertFalse(b.isValid());
        assertEquals(OptionalLong.empty(), Fencing.currentToken(), "closed on the acquiring thread: bindings restored");
        assertEquals(null, FencedTestExtension.boundCell());
        assertEquals(0, db.queryLong("SELECT count(*) FROM fenced_lease WHERE name LIKE 'm-%' AND expires_at > now()"));
        assertThrows(IllegalStateException.class, () -> leases.tryAcquire("m-c", Duration.ofSeconds(30)));
        leases.close();
    }

    @Test
    void argumentsAreChecked() {
        try (LeaseManager leases = LeaseManager.builder(pool)
                .renewalInterval(Duration.ofSeconds(1))
                .build()) {
            assertThrows(IllegalArgumentException.class, () -> leases.tryAcquire("", Duration.ofSeconds(30)));
            assertThrows(IllegalArgumentException.class, () -> leases.tryAcquire("x", Duration.ZERO));
            IllegalArgumentException tooShort =
                    assertThrows(IllegalArgumentException.class, () -> leases.tryAcquire("x", Duration.ofMillis(900)));
            assertTrue(tooShort.getMessage().contains("renewal interval"), tooShort.getMessage());
        }
        assertThrows(
                IllegalArgumentException.class, () -> LeaseManager.builder(pool).table("no;such table"));
    }
}
