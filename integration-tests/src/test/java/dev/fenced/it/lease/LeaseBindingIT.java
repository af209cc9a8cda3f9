package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseRegistry;
import dev.fenced.it.support.FencedTestExtension;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
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
