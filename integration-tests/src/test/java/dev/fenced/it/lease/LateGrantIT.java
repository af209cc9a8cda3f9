package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.sql.Connection;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A grant that runs out of its time budget while the server is still working on it (here: waiting for a table lock
 * another session holds) commits once the lock is gone. The caller was told 57014, so nobody holds or renews that
 * lease; before, it blocked the name for its whole ttl (five minutes here). Now the late answer is released when it
 * arrives, and the name can be granted again at once.
 */
class LateGrantIT extends LeaseDatabase {

    @Test
    void aGrantThatAnsweredTooLateIsReleasedAndTheNameIsFreeAgain() throws Exception {
        try (LeaseManager leases =
                LeaseManager.builder(pool).storeTimeout(Duration.ofSeconds(1)).build()) {
            long warmUp;
            try (Lease lease =
                    leases.tryAcquire("warm-up", Duration.ofSeconds(30)).orElseThrow()) {
                warmUp = lease.token(); // the table exists from here on
            }
            try (Connection blocker = pool.getConnection();
                    Statement st = blocker.createStatement()) {
                blocker.setAutoCommit(false);
                st.execute("LOCK TABLE fenced_lease IN SHARE MODE"); // every grant waits for it
                SQLTimeoutException late =
                        assertThrows(SQLTimeoutException.class, () -> leases.tryAcquire("job", Duration.ofMinutes(5)));
                assertEquals("57014", late.getSQLState(), late.toString());
                blocker.commit(); // the waiting grant now commits, after its caller gave up
            }
            try (Lease again = leases.tryAcquire("job", Duration.ofMinutes(5)).orElseThrow()) {
                // The late grant committed (it drew warmUp + 1) and was released: this grant took its row over,
                // which draws twice (the insert's value, then the takeover's). A late grant that never ran would
                // leave a fresh insert, warmUp + 1.
                assertEquals(warmUp + 3, again.token());
            }
        }
    }
}
