package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Every grant's token is larger than every token granted before it, whatever happened in between. */
@Tag("server-sensitive")
class LeaseTokenOrderIT extends LeaseDatabase {

    @Test
    void tokensGrowAcrossNamesReleasesExpiriesAndManagers() throws Exception {
        List<Long> tokens = new ArrayList<>();
        ProbeDataSource partitionable = new ProbeDataSource(pool);
        try (LeaseManager m1 = LeaseManager.create(partitionable)) {
            Lease a = m1.tryAcquire("a", Duration.ofSeconds(30)).orElseThrow();
            tokens.add(a.token());
            Lease b = m1.tryAcquire("b", Duration.ofSeconds(30)).orElseThrow();
            tokens.add(b.token());
            b.close();
            a.close();
            tokens.add(m1.tryAcquire("a", Duration.ofSeconds(30)).orElseThrow().token()); // after a release
            tokens.add(m1.tryAcquire("b", Duration.ofSeconds(30)).orElseThrow().token());
            Lease c = m1.tryAcquire("c", Duration.ofMillis(500)).orElseThrow();
            tokens.add(c.token());

            // m1 is cut off from the database: its lease on c expires by the database clock, and another
            // manager takes it over.
            partitionable.pointAt(null);
            try (LeaseManager m2 = LeaseManager.create(pool)) {
                Lease c2 = m2.acquire("c", Duration.ofSeconds(30), Duration.ofSeconds(10));
                tokens.add(c2.token()); // after an expiry
                assertTrue(!c.isValid(), "m1 must have lost c by now");
                tokens.add(
                        m2.tryAcquire("d", Duration.ofSeconds(30)).orElseThrow().token());
            }
            partitionable.pointAt(pool);
        }
        // A new manager (a restarted application) continues above every old token.
        try (LeaseManager m3 = LeaseManager.create(pool)) {
            tokens.add(m3.tryAcquire("a", Duration.ofSeconds(30)).orElseThrow().token());
            tokens.add(
                    m3.tryAcquire("fresh", Duration.ofSeconds(30)).orElseThrow().token());
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens must strictly grow: " + tokens);
        }
        assertTrue(db.queryLong("SELECT last_value FROM fenced_lease_token_seq")
                >= dev.fenced.internal.lease.Tokens.sequenceOf(tokens.get(tokens.size() - 1)));
    }

    /**
     * A user resets the token sequence after the first use's check. Before, the next grants handed out tokens
     * already granted (a new name got the token of "other"; a takeover got one no higher than the name's previous
     * holder's, so a stale holder's writes could outrank the new holder's). Now every grant is refused (FN020)
     * until the sequence is moved past the table's tokens, and the lease row keeps its token.
     */
    @Test
    void aSequenceResetAfterFirstUseNeverGrantsANameALowerToken() throws Exception {
        // A database of its own: the class's database has its default lease table, and a database has one.
        dev.fenced.it.support.TestDatabase db = dev.fenced.it.support.TestDatabase.create();
        try (var pool = DataSources.pool(db, 2);
                LeaseManager m = LeaseManager.builder(pool).table("reset_lease").build()) {
            long first;
            try (Lease lease = m.tryAcquire("reset-me", Duration.ofSeconds(30)).orElseThrow()) {
                first = lease.token();
                m.tryAcquire("other", Duration.ofSeconds(30)).orElseThrow().close();
            }
            db.execute("ALTER SEQUENCE reset_lease_token_seq RESTART WITH 1");
            dev.fenced.FencingException fresh = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.fenced.FencingException.class, () -> m.tryAcquire("new-name", Duration.ofSeconds(30)));
            assertTrue(fresh.getMessage().contains("not above the highest token already granted"), fresh.getMessage());
            dev.fenced.FencingException e = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.fenced.FencingException.class, () -> m.tryAcquire("reset-me", Duration.ofSeconds(30)));
            org.junit.jupiter.api.Assertions.assertEquals(dev.fenced.FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(e.getMessage().contains("not above the highest token already granted"), e.getMessage());
            org.junit.jupiter.api.Assertions.assertEquals(
                    first, db.queryLong("SELECT token FROM reset_lease WHERE name = 'reset-me'"));
        }
    }
}
