package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.Ticker;
import dev.fenced.spring.integration.FencedLockRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Lease time on a {@link Ticker} the test moves, through the public builder: deadlines and waits follow it, not
 * the wall, so none of these tests sleeps or waits for time to pass.
 */
class LeaseTickerIT extends LeaseDatabase {

    /** A clock that stands still until the test moves it. */
    private static final class FakeTicker implements Ticker {
        private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

        @Override
        public long read() {
            return nanos.get();
        }

        void advance(Duration d) {
            nanos.addAndGet(d.toNanos());
        }
    }

    @Test
    void aLeaseEndsWhenTheTickerPassesItsDeadlineAndItsWritesAreRefused() throws Exception {
        db.execute(
                "CREATE TABLE IF NOT EXISTS ticked (id int PRIMARY KEY, last_token bigint)",
                "INSERT INTO ticked VALUES (1, NULL) ON CONFLICT DO NOTHING");
        FakeTicker ticker = new FakeTicker();
        try (LeaseManager leases = LeaseManager.builder(pool)
                        .ticker(ticker)
                        .withoutRenewal()
                        .build();
                Lease lease = leases.tryAcquire("ticked", Duration.ofHours(1)).orElseThrow();
                Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=ticked"));
                Statement s = c.createStatement()) {
            assertSame(ticker, leases.ticker());
            assertEquals(1, s.executeUpdate("UPDATE ticked SET id = 1"));
            ticker.advance(Duration.ofMinutes(53)); // within the hour less its tenth of clock-drift margin
            assertTrue(lease.isValid());
            ticker.advance(Duration.ofMinutes(1));
            assertFalse(lease.isValid(), "54 minutes on the ticker: past the deadline of a one-hour lease");
            assertThrows(LeaseLostException.class, () -> s.executeUpdate("UPDATE ticked SET id = 1"));
        }
    }

    @Test
    void acquireGivesUpWhenItsWaitHasPassedOnTheTicker() throws Exception {
        FakeTicker ticker = new FakeTicker();
        // each read of the waiter's clock is a minute after the one before: after its first attempt, the
        // 30 s wait has passed, so it gives up at once instead of pausing to try again
        Ticker leaping = () -> {
            ticker.advance(Duration.ofMinutes(1));
            return ticker.read();
        };
        try (LeaseManager holder = LeaseManager.create(pool);
                Lease held =
                        holder.tryAcquire("ticked-wait", Duration.ofMinutes(5)).orElseThrow();
                LeaseManager waiter = LeaseManager.builder(pool).ticker(leaping).build()) {
            FencingException e = assertThrows(
                    FencingException.class,
                    () -> waiter.acquire("ticked-wait", Duration.ofMinutes(5), Duration.ofSeconds(30)));
            assertEquals(FencingException.LEASE_TIMEOUT, e.getSQLState());
            assertTrue(held.isValid());
        }
    }

    @Test
    void theSpringIntegrationLockIsIdleForAsLongAsItsManagersTickerSays() {
        FakeTicker ticker = new FakeTicker();
        try (LeaseManager leases = LeaseManager.builder(pool)
                        .ticker(ticker)
                        .withoutRenewal()
                        .build();
                FencedLockRegistry registry = new FencedLockRegistry(leases, Duration.ofSeconds(30), "ticked-")) {
            Lock lock = registry.obtain("idle");
            assertTrue(lock.tryLock());
            lock.unlock();
            ticker.advance(Duration.ofSeconds(5));
            registry.expireUnusedOlderThan(10_000);
            assertSame(lock, registry.obtain("idle"), "unused for 5 s on the ticker: kept");
            ticker.advance(Duration.ofSeconds(6));
            registry.expireUnusedOlderThan(10_000);
            assertNotSame(lock, registry.obtain("idle"), "unused for 11 s on the ticker: forgotten");
        }
    }
}
