package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.lease.fault.StallingProxy;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The lease store behind a network that silently stops forwarding bytes (no RST, no FIN), then heals.
 * The DataSource is plain pgjdbc with no socket timeout at all: every bound comes from the library.
 * The measured figures are printed. The stated bounds are the library's liveness contract, derived from its
 * design, and each is asserted with {@link #SLACK_MILLIS} of slack for a loaded machine (they are contracts,
 * not speed):
 * <ul>
 *   <li>a lease still held when a stall of any length heals is renewed within {@code 0.55 × ttl} of the heal:
 *   the attempt stuck in the stall is given at most half the time left to the deadline ({@code 0.45 × ttl}
 *   with the default margin), then retried a quarter renewal interval later ({@code ttl / 12});</li>
 *   <li>after a stall that outlived the deadline, a grant right after the heal waits on nothing stuck (within
 *   the store timeout) and its lease is renewed on schedule (within one renewal interval, {@code ttl / 3});</li>
 *   <li>{@code acquire(name, ttl, maxWait)} returns within {@code maxWait} + 2 × 500 ms, however silent the store;</li>
 *   <li>{@code Lease.close()} and {@code LeaseManager.close()} return within the store timeout (5 s).</li>
 * </ul>
 */
@ExtendWith(FencedTestExtension.class)
class LeaseStallIT {

    private static final Duration TTL = Duration.ofSeconds(3);
    private static final long SLACK_MILLIS = 2_000;
    private static final long STORE_TIMEOUT_MILLIS = LeaseManager.DEFAULT_STORE_TIMEOUT_MILLIS;

    private static TestDatabase db;
    private StallingProxy proxy;

    @BeforeAll
    static void database(TestDatabase database) {
        db = database;
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
    }

    private PGSimpleDataSource proxied() throws Exception {
        URI raw = URI.create(db.rawUrl().substring("jdbc:".length()));
        proxy = new StallingProxy(raw.getPort());
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL("jdbc:postgresql://127.0.0.1:" + proxy.port() + raw.getPath() + "?" + raw.getQuery());
        return ds;
    }

    @Test
    void renewalResumesAfterTheNetworkHeals() throws Exception {
        PGSimpleDataSource ds = proxied();
        try (LeaseManager leases = LeaseManager.create(ds)) {
            Lease before = leases.tryAcquire("stall-before", TTL).orElseThrow();
            CountDownLatch lost = new CountDownLatch(1);
            before.onLost(l -> lost.countDown());
            proxy.stall();
            long stalledAt = System.nanoTime();
            assertTrue(lost.await(TTL.toMillis() * 3, TimeUnit.MILLISECONDS), "a lease that cannot be renewed is lost");
            // The stall lasts 5 s in all, well past the renewal statement that is stuck on the silent socket.
            TimeUnit.NANOSECONDS.sleep(Math.max(0, stalledAt + TimeUnit.SECONDS.toNanos(5) - System.nanoTime()));
            proxy.heal();
            long healedAt = System.nanoTime();
            Lease after = leases.acquire("stall-after", TTL, Duration.ofSeconds(20));
            long grantedAt = System.nanoTime();
            long firstRenewal = awaitRenewal("stall-after", after.token(), Duration.ofSeconds(15));
            System.out.printf(
                    "stall 5 s: grant %d ms after the heal, first renewal %d ms after the heal%n",
                    (grantedAt - healedAt) / 1_000_000, (firstRenewal - healedAt) / 1_000_000);
            assertTrue(after.isValid());
            long grantMs = (grantedAt - healedAt) / 1_000_000;
            long renewalMs = (firstRenewal - grantedAt) / 1_000_000;
            assertTrue(grantMs <= STORE_TIMEOUT_MILLIS + SLACK_MILLIS, "grant " + grantMs + " ms after the heal");
            assertTrue(
                    renewalMs <= TTL.toMillis() / 3 + SLACK_MILLIS,
                    "first renewal " + renewalMs + " ms after the grant");
            after.close();
        }
    }

    @Test
    void acquireReturnsWithinMaxWaitDuringAStall() throws Exception {
        PGSimpleDataSource ds = proxied();
        try (LeaseManager leases = LeaseManager.create(ds)) {
            leases.tryAcquire("stall-warm", TTL).orElseThrow().close();
            proxy.stall();
            Duration maxWait = Duration.ofSeconds(1);
            long start = System.nanoTime();
            assertTimeoutPreemptively(
                    Duration.ofSeconds(15),
                    () -> assertThrows(SQLException.class, () -> leases.acquire("stall-acquire", TTL, maxWait)));
            long acquireMs = (System.nanoTime() - start) / 1_000_000;
            start = System.nanoTime();
            assertTimeoutPreemptively(
                    Duration.ofSeconds(15),
                    () -> assertThrows(SQLException.class, () -> leases.tryAcquire("stall-try", TTL)));
            long tryMs = (System.nanoTime() - start) / 1_000_000;
            System.out.printf(
                    "stalled store: acquire(maxWait 1000 ms) returned after %d ms, tryAcquire after %d ms%n",
                    acquireMs, tryMs);
            assertTrue(
                    acquireMs <= maxWait.toMillis() + 2 * LeaseManager.ACQUIRE_GRACE_MILLIS + SLACK_MILLIS,
                    "acquire returned after " + acquireMs + " ms");
            assertTrue(tryMs <= STORE_TIMEOUT_MILLIS + SLACK_MILLIS, "tryAcquire returned after " + tryMs + " ms");
        }
    }

    @Test
    void closeReturnsDuringAStall() throws Exception {
        PGSimpleDataSource ds = proxied();
        LeaseManager leases = LeaseManager.create(ds);
        Lease one = leases.tryAcquire("stall-close-1", TTL).orElseThrow();
        var unused = leases.tryAcquire("stall-close-2", TTL).orElseThrow();
        proxy.stall();
        long start = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(15), one::close);
        long leaseMs = (System.nanoTime() - start) / 1_000_000;
        start = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(15), leases::close);
        long managerMs = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("stalled store: Lease.close() %d ms, LeaseManager.close() %d ms%n", leaseMs, managerMs);
        assertTrue(leaseMs <= STORE_TIMEOUT_MILLIS + SLACK_MILLIS, "Lease.close() took " + leaseMs + " ms");
        assertTrue(managerMs <= STORE_TIMEOUT_MILLIS + SLACK_MILLIS, "LeaseManager.close() took " + managerMs + " ms");
    }

    /** A stall shorter than the deadline: the renewal stuck in it is given up and retried, the lease survives. */
    @Test
    void aLeaseSurvivesAStallShorterThanItsDeadline() throws Exception {
        PGSimpleDataSource ds = proxied();
        Duration ttl = Duration.ofSeconds(6);
        try (LeaseManager leases = LeaseManager.create(ds)) {
            Lease lease = leases.tryAcquire("stall-short", ttl).orElseThrow();
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost(l -> lost.countDown());
            long grantedAt = System.nanoTime();
            proxy.stall(); // the renewal due at 2 s goes out into the silence
            TimeUnit.NANOSECONDS.sleep(
                    Math.max(0, grantedAt + TimeUnit.MILLISECONDS.toNanos(2500) - System.nanoTime()));
            long before = db.queryLong("SELECT (extract(epoch FROM renewed_at) * 1000000)::bigint FROM fenced_lease"
                    + " WHERE name = 'stall-short'");
            proxy.heal();
            long healedAt = System.nanoTime();
            long renewedAt = awaitRenewalAfter("stall-short", before, Duration.ofSeconds(10));
            System.out.printf(
                    "stall 2.5 s (ttl 6 s): first renewal %d ms after the heal%n", (renewedAt - healedAt) / 1_000_000);
            assertTrue(lease.isValid(), "the lease outlived a stall shorter than its deadline: " + lease);
            long afterHealMs = (renewedAt - healedAt) / 1_000_000;
            assertTrue(
                    afterHealMs <= ttl.toMillis() * 55 / 100 + SLACK_MILLIS,
                    "first renewal " + afterHealMs + " ms after the heal, bound 0.55 x ttl = "
                            + ttl.toMillis() * 55 / 100 + " ms");
            assertTrue(lost.getCount() == 1);
            lease.close();
        }
    }

    private static long awaitRenewalAfter(String name, long renewedMicros, Duration within) throws Exception {
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            if (db.queryLong("SELECT count(*) FROM fenced_lease WHERE name = '" + name + "' AND"
                            + " (extract(epoch FROM renewed_at) * 1000000)::bigint > " + renewedMicros)
                    > 0) {
                return System.nanoTime();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("lease " + name + " was not renewed within " + within);
    }

    /** Polls the row behind the proxy's back until it shows a renewal; returns when it saw it. */
    private static long awaitRenewal(String name, long token, Duration within) throws Exception {
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            if (db.queryLong("SELECT count(*) FROM fenced_lease WHERE name = '" + name + "' AND token = " + token
                            + " AND renewed_at > granted_at")
                    > 0) {
                return System.nanoTime();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("lease " + name + " was not renewed within " + within);
    }
}
