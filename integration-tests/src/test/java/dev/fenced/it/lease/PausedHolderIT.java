package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seed's paused holder, for real. A holder in another JVM takes the nightly-totals lease (ttl 1 s)
 * and is frozen with SIGSTOP in the middle of its job, past its lease. A newer holder takes the lease
 * and writes the total. The old holder is thawed with SIGCONT and, still believing in its lease, writes
 * its stale total through the fenced driver: it is refused, and the newer total stays.
 */
@ExtendWith(FencedTestExtension.class)
@Tag("jvm-sensitive")
class PausedHolderIT {

    private static final String LEASE = "nightly-totals";

    private static TestDatabase db;

    @BeforeAll
    static void setUp(TestDatabase database) {
        db = database;
        db.execute(
                "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)",
                "INSERT INTO totals VALUES (77, 0, NULL)");
    }

    /**
     * Whichever comes first after SIGCONT refuses the write: the child's renewer poisoning the token on the
     * client (LeaseLostException), or the database's fence (StaleTokenException). Both are races a real
     * holder runs; the test reports which one won.
     */
    @Test
    void aThawedStaleHolderCannotOverwriteTheNewerHoldersTotal() throws Exception {
        String outcome = pauseWriteAndResume("write");
        assertTrue(
                outcome.startsWith("REFUSED StaleTokenException") || outcome.startsWith("REFUSED LeaseLostException"),
                outcome);
        if (outcome.startsWith("REFUSED LeaseLostException")) {
            assertTrue(outcome.contains("'" + LEASE + "'"), "the refusal names the lease: " + outcome);
        }
    }

    /**
     * A write that beats every client-side check still meets the database, which keeps the newer total. The frozen
     * holder's token is bound by hand in a fresh JVM that never held its lease, so nothing on the client can poison
     * it: only the database stands between it and the newer total. (In the holder's own JVM even a token copied with
     * {@code Fencing.bind} is poisoned once the thawed renewer sees the loss, which may come first: the race the test
     * above accepts, and the reason this one does not rely on it.)
     */
    @Test
    void aStaleWriteThatBeatsThePoisonIsRefusedByTheDatabase() throws Exception {
        String[] here = new String[1];
        String outcome = pauseWriteAndResume("write", staleToken -> here[0] = writeHere(staleToken));
        assertTrue(here[0].startsWith("REFUSED StaleTokenException"), here[0]);
        assertTrue(outcome.startsWith("REFUSED "), "the thawed holder is refused too: " + outcome);
    }

    private String pauseWriteAndResume(String mode) throws Exception {
        return pauseWriteAndResume(mode, staleToken -> {});
    }

    /**
     * The stale total written with {@code staleToken} bound by hand in a fresh JVM: not in this one, where other tests'
     * leases of other databases may have ended holding the same number (each database's counter starts alike), which
     * the client would refuse as lost before the database sees the write.
     */
    private static String writeHere(long staleToken) {
        try (ChildJvm writer = ChildJvm.start(
                LeaseHolderChild.class,
                "write-bound",
                db.fencedUrl("fenced.tables=totals"),
                Long.toString(staleToken),
                "666")) {
            String outcome = writer.awaitLine(Duration.ofSeconds(30), "WROTE", "REFUSED", "ERROR");
            assertTrue(writer.waitFor(Duration.ofSeconds(20)), "the writer should finish");
            return outcome;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param beforeThaw runs with the frozen holder's token after the newer holder wrote, before the thaw
     */
    private String pauseWriteAndResume(String mode, java.util.function.LongConsumer beforeThaw) throws Exception {
        db.execute("UPDATE totals SET amount = 0, last_token = NULL WHERE restaurant_id = 77");
        String fencedUrl = db.fencedUrl("fenced.tables=totals");
        try (ChildJvm stale = ChildJvm.start(LeaseHolderChild.class, mode, db.rawUrl(), LEASE, "1000", fencedUrl);
                LeaseManager leases = LeaseManager.create(DataSources.simple(db))) {
            long staleToken = Long.parseLong(
                    stale.awaitLine(Duration.ofSeconds(30), "READY ").substring(6));

            stale.signal("STOP");
            stale.awaitStopped(Duration.ofSeconds(5));

            // acquire() returns only once the database has let the frozen holder's lease expire.
            Lease lease = leases.acquire(LEASE, Duration.ofSeconds(30), Duration.ofSeconds(15));
            assertTrue(lease.token() > staleToken);
            try (Connection c = DriverManager.getConnection(fencedUrl);
                    PreparedStatement ps =
                            c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = 77")) {
                ps.setLong(1, 42_000);
                assertEquals(1, ps.executeUpdate());
            }

            beforeThaw.accept(staleToken);
            assertEquals(42_000, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"));

            stale.send("WRITE 666"); // waits in the pipe: the child reads it the moment it runs again
            stale.signal("CONT");
            String outcome = stale.awaitLine(Duration.ofSeconds(30), "WROTE", "REFUSED", "ERROR");
            System.out.println("paused holder (" + mode + ") outcome: " + outcome);
            assertEquals(42_000, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"));
            assertEquals(lease.token(), db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 77"));
            assertTrue(stale.waitFor(Duration.ofSeconds(20)), "the child should finish after its refused write");
            lease.close();
            return outcome;
        }
    }
}
