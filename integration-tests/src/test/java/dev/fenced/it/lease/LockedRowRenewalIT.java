package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One lease row locked by someone else (an idle transaction that ran {@code SELECT ... FOR UPDATE}) must not
 * make the batch renewal wait past every lease's deadline: the other leases of the manager are renewed, and
 * only the locked one runs out.
 */
class LockedRowRenewalIT extends LeaseDatabase {

    @Test
    void aLockedRowDoesNotCostTheOtherLeases() throws Exception {
        Duration ttl = Duration.ofSeconds(3);
        try (LeaseManager leases = LeaseManager.create(pool);
                Connection locker = db.rawConnection()) {
            Lease a = leases.tryAcquire("locked-a", ttl).orElseThrow();
            Lease b = leases.tryAcquire("locked-b", ttl).orElseThrow();
            Lease c = leases.tryAcquire("locked-c", ttl).orElseThrow();
            CountDownLatch othersLost = new CountDownLatch(1);
            CountDownLatch bLost = new CountDownLatch(1);
            a.onLost(l -> othersLost.countDown());
            c.onLost(l -> othersLost.countDown());
            b.onLost(l -> bLost.countDown());
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.execute("SELECT * FROM fenced_lease WHERE name = 'locked-b' FOR UPDATE");
            }
            assertFalse(
                    othersLost.await(ttl.toMillis() * 3, TimeUnit.MILLISECONDS),
                    "leases whose rows nobody locked were lost: a=" + a + " c=" + c);
            assertTrue(bLost.await(ttl.toMillis() * 2, TimeUnit.MILLISECONDS), "the locked lease could not be renewed");
            locker.rollback();
            assertTrue(a.isValid() && c.isValid());
        }
    }
}
