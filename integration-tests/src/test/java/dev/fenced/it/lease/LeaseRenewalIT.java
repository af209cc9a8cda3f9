package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedStats;
import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Renewal keeps leases for many ttls, with one statement per tick for all of them. */
class LeaseRenewalIT extends LeaseDatabase {

    /**
     * A 600 ms lease held for 3 s (five ttls) while a rival tries all along; 20 more leases and one with a
     * longer ttl ride along. Time is the subject here, so this test waits for real.
     */
    @Test
    void renewalKeepsLeasesAliveWithOneStatementPerTick() throws Exception {
        ProbeDataSource counted = new ProbeDataSource(pool);
        try (LeaseManager holder = LeaseManager.create(counted);
                LeaseManager rival = LeaseManager.create(pool)) {
            Lease contested =
                    holder.tryAcquire("contested", Duration.ofMillis(600)).orElseThrow();
            List<Lease> others = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                others.add(
                        holder.tryAcquire("batch-" + i, Duration.ofMillis(600)).orElseThrow());
            }
            Lease slow = holder.tryAcquire("slow", Duration.ofSeconds(3)).orElseThrow();
            long renewalsBefore = FencedStats.counters().get("fenced.leases.renewed");
            int borrowsBefore = counted.borrows();

            long start = System.nanoTime();
            FencingException timeout = assertThrows(
                    FencingException.class,
                    () -> rival.acquire("contested", Duration.ofMillis(600), Duration.ofSeconds(3)));
            long waitedMs = (System.nanoTime() - start) / 1_000_000;

            assertEquals(FencingException.LEASE_TIMEOUT, timeout.getSQLState());
            assertTrue(waitedMs >= 3000, "the rival gave up after " + waitedMs + " ms");
            assertTrue(contested.isValid(), "renewal must keep the lease for five ttls");
            assertTrue(slow.isValid());
            others.forEach(l -> assertTrue(l.isValid(), l.toString()));
            assertEquals(contested.token(), db.queryLong("SELECT token FROM fenced_lease WHERE name = 'contested'"));

            long renewals = FencedStats.counters().get("fenced.leases.renewed") - renewalsBefore;
            int statements = counted.borrows() - borrowsBefore;
            System.out.printf(
                    "renewal: %d lease renewals in %d statements over %d ms%n", renewals, statements, waitedMs);
            // 21 leases renewed about every 200 ms for 3 s: some 300 renewals. One statement per lease would
            // be 300 statements; one per tick is about 15-20 (the 3 s lease sometimes gets a tick of its own).
            assertTrue(renewals >= 21 * 10, "only " + renewals + " renewals");
            assertTrue(statements <= 40, statements + " statements for " + renewals + " renewals: not batched");
        }
    }

    @Test
    void leasesWithDifferentTtlsAreEachRenewedWhenDue() throws Exception {
        try (LeaseManager holder = LeaseManager.create(pool)) {
            Lease fast = holder.tryAcquire("fast", Duration.ofMillis(450)).orElseThrow();
            Lease slow = holder.tryAcquire("slow-ttl", Duration.ofSeconds(6)).orElseThrow();
            long fastFirst = epochMillis("renewed_at", "fast");
            long slowFirst = epochMillis("renewed_at", "slow-ttl");
            Thread.sleep(1200); // time is the subject: almost three ttls of the fast lease
            assertTrue(fast.isValid());
            assertTrue(slow.isValid());
            long fastGap = epochMillis("renewed_at", "fast") - fastFirst;
            long slowGap = epochMillis("renewed_at", "slow-ttl") - slowFirst;
            assertTrue(
                    fastGap >= 800,
                    "the 450 ms lease must have been renewed repeatedly, last after " + fastGap + " ms");
            assertEquals(
                    0,
                    slowGap,
                    "the 6 s lease is not due before 1.6 s (2 s less the batching window) and must not be renewed yet");
        }
    }

    private static long epochMillis(String column, String name) {
        return db.queryLong("SELECT (extract(epoch FROM " + column
                + ") * 1000)::bigint FROM fenced_lease WHERE name = '" + name + "'");
    }
}
