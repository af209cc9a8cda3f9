package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** acquire() waits for a held lease and takes it the moment it is released; or gives up, saying why. */
@Tag("server-sensitive")
class LeaseAcquireIT extends LeaseDatabase {

    @Test
    void acquireWaitsForTheHolderAndGetsANewerToken() throws Exception {
        ProbeDataSource waiterSource = new ProbeDataSource(pool);
        CountDownLatch triedThrice = new CountDownLatch(3);
        waiterSource.onBorrow(n -> triedThrice.countDown());
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (LeaseManager holder = LeaseManager.create(pool);
                LeaseManager waiter = LeaseManager.create(waiterSource)) {
            Lease held = holder.tryAcquire("queue", Duration.ofSeconds(30)).orElseThrow();
            Future<long[]> waited = waiterThread.submit(() -> {
                Lease lease = waiter.acquire("queue", Duration.ofSeconds(30), Duration.ofSeconds(20));
                long bound = Fencing.currentToken().orElse(-1);
                long released = System.nanoTime();
                lease.close();
                return new long[] {lease.token(), bound, released};
            });
            // Three grant attempts have been made and refused: the waiter is waiting.
            assertTrue(triedThrice.await(10, TimeUnit.SECONDS));
            assertFalse(waited.isDone(), "acquire returned while the lease was held");

            long releasedAt = System.nanoTime();
            held.close();
            long[] result = waited.get(10, TimeUnit.SECONDS);
            assertTrue(
                    result[0] > held.token(),
                    "the waiter's token " + result[0] + " must be newer than " + held.token());
            assertEquals(result[0], result[1], "the waiter's lease is bound to the thread that acquired it");
            long tookMs = (result[2] - releasedAt) / 1_000_000;
            assertTrue(tookMs < 2000, "the waiter took " + tookMs + " ms to notice the release");
        } finally {
            waiterThread.shutdownNow();
        }
    }

    @Test
    void acquireTimesOutWithLeaseTimeoutNamingTheLeaseAndTheWait() throws Exception {
        try (LeaseManager holder = LeaseManager.create(pool);
                LeaseManager waiter = LeaseManager.create(pool)) {
            Lease held = holder.tryAcquire("busy", Duration.ofSeconds(30)).orElseThrow();
            long start = System.nanoTime();
            FencingException e = assertThrows(
                    FencingException.class,
                    () -> waiter.acquire("busy", Duration.ofSeconds(30), Duration.ofMillis(300)));
            long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(FencingException.LEASE_TIMEOUT, e.getSQLState());
            assertTrue(waitedMs >= 300, "gave up after " + waitedMs + " ms");
            assertTrue(waitedMs < 3000, "gave up only after " + waitedMs + " ms");
            assertTrue(e.getMessage().contains("'busy'"), e.getMessage());
            assertTrue(e.getMessage().contains("300 ms"), e.getMessage());
            assertTrue(e.getMessage().contains(holder.holder()), "the message names the holder: " + e.getMessage());
            assertTrue(e.getMessage().contains("token " + held.token()), e.getMessage());
            assertEquals(OptionalLong.of(held.token()), Fencing.currentToken(), "the waiter's failure binds nothing");
        }
    }
}
