package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import org.junit.jupiter.api.Test;

class LeaseRegistryTest {

    // Tokens far above anything another test grants.
    private static final long BASE = 9_000_000_000_000L;

    @Test
    void heldThenEndedThenForgottenOnceEnoughOthersEnded() {
        Object lease = new Object();
        LeaseRegistry.held(lease, "fenced", BASE, "nightly");
        assertEquals("nightly", LeaseRegistry.nameOf(BASE));
        LeaseRegistry.ended(lease, BASE);
        assertEquals("nightly", LeaseRegistry.nameOf(BASE), "a poisoned token may still be used; keep its name");
        for (int i = 1; i <= LeaseRegistry.RECENT_LIMIT; i++) {
            Object other = new Object();
            LeaseRegistry.held(other, "fenced", BASE + i, "other-" + i);
            LeaseRegistry.ended(other, BASE + i);
        }
        assertNull(LeaseRegistry.nameOf(BASE), "the oldest ended lease is evicted");
        assertTrue(LeaseRegistry.size() <= LeaseRegistry.RECENT_LIMIT + 100, "bounded: " + LeaseRegistry.size());
    }

    @Test
    void theSameTokenFromTwoStoresNamesBothAndEachEndsAlone() {
        long token = BASE - 1;
        Object a = new Object();
        Object b = new Object();
        LeaseRegistry.held(a, "fenced", token, "in-db-a");
        LeaseRegistry.held(b, "fenced", token, "in-db-b");
        assertEquals("in-db-a or in-db-b", LeaseRegistry.nameOf(token));
        LeaseRegistry.ended(a, token);
        assertEquals("in-db-b", LeaseRegistry.nameOf(token), "held leases win over ended ones");
        LeaseRegistry.ended(b, token);
        assertEquals("in-db-a or in-db-b", LeaseRegistry.nameOf(token));
    }

    /**
     * An etcd lease (its token an etcd revision) that ended with the same number as a PostgreSQL token says
     * nothing about that token: binding it in fenced's domain stays live, and a stale write with it is refused as
     * stale, not as a lost lease (a failure seen when an etcd test ran before the JDBC attack tests).
     */
    @Test
    void aLeaseOfAnotherDomainThatEndedDoesNotMakeTheSameNumberLost() {
        long token = BASE - 3;
        Object etcd = new Object();
        LeaseRegistry.held(etcd, "etcd", token, "totals-job-rival");
        LeaseRegistry.ended(etcd, token);
        try (FencingScope ignored = Fencing.bind(token)) {
            assertEquals(token, Fencing.currentToken().getAsLong(), "only an etcd lease had this number");
        }
    }

    @Test
    void aTokenOfALeaseThatEndedHereBindsAsLostWhileAnotherStoresHeldOneStaysLive() {
        long token = BASE - 2;
        Object a = new Object();
        Object b = new Object();
        try (FencingScope ignored = Fencing.bind(token)) {
            assertEquals(token, Fencing.currentToken().getAsLong(), "a number no lease here had is bound as given");
        }
        LeaseRegistry.held(a, "fenced", token, "in-db-a");
        LeaseRegistry.held(b, "fenced", token, "in-db-b");
        LeaseRegistry.ended(a, token);
        try (FencingScope ignored = Fencing.bind(token)) {
            assertEquals(token, Fencing.currentToken().getAsLong(), "lease b still holds this number");
        }
        LeaseRegistry.ended(b, token);
        try (FencingScope ignored = Fencing.bind(token)) {
            assertTrue(Fencing.currentToken().isEmpty(), "every lease with this token ended: it binds as lost");
        }
    }
}
