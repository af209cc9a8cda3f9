package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.sql.Timestamp;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A holder that crashes (SIGKILL: no release, no shutdown hook) blocks its lease for one ttl, measured by
 * the database clock, and not a moment longer; the next holder gets a bigger token.
 */
@ExtendWith(FencedTestExtension.class)
class LeaseExpiryIT {

    private static TestDatabase db;

    @BeforeAll
    static void setUp(TestDatabase database) {
        db = database;
    }

    @Test
    void crashedHoldersLeaseExpiresByTheDatabaseClock() throws Exception {
        try (LeaseManager survivor = LeaseManager.create(DataSources.simple(db))) {
            long crashedToken;
            Timestamp crashedExpiry;
            try (ChildJvm child = ChildJvm.start(LeaseHolderChild.class, "hold", db.rawUrl(), "nightly", "1500")) {
                crashedToken = Long.parseLong(
                        child.awaitLine(Duration.ofSeconds(30), "READY ").substring(6));
                assertTrue(
                        survivor.tryAcquire("nightly", Duration.ofSeconds(10)).isEmpty(), "the child holds it");
                child.kill();
                // The child renewed until it died; what counts now is the expiry the database wrote.
                crashedExpiry = expiresAt("nightly");
            }
            Lease next = survivor.acquire("nightly", Duration.ofSeconds(10), Duration.ofSeconds(15));
            assertTrue(next.token() > crashedToken, next.token() + " must be larger than " + crashedToken);
            Timestamp grantedAt = timestamp("SELECT granted_at FROM fenced_lease WHERE name = 'nightly'");
            assertTrue(
                    !grantedAt.before(crashedExpiry),
                    "granted at " + grantedAt + ", before the crashed holder's lease expired at " + crashedExpiry);
            assertEquals(survivor.holder(), holderOf("nightly"));
        }
    }

    private static String holderOf(String name) throws Exception {
        try (var c = db.rawConnection();
                var ps = c.prepareStatement("SELECT holder FROM fenced_lease WHERE name = ?")) {
            ps.setString(1, name);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static Timestamp expiresAt(String name) throws Exception {
        return timestamp("SELECT expires_at FROM fenced_lease WHERE name = '" + name + "'");
    }

    private static Timestamp timestamp(String sql) throws Exception {
        try (var c = db.rawConnection();
                var s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }
}
