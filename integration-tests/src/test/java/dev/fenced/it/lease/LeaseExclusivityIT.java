package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.FencedTestExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One lease name, one holder at a time: across managers and across racing threads. */
class LeaseExclusivityIT extends LeaseDatabase {

    @Test
    void twoManagersOneLease() throws Exception {
        try (LeaseManager a = LeaseManager.create(pool);
                LeaseManager b = LeaseManager.create(pool)) {
            assertNotEquals(a.holder(), b.holder(), "default holders must differ");
            Optional<Lease> first = a.tryAcquire("exclusive", Duration.ofSeconds(30));
            assertTrue(first.isPresent());
            assertTrue(b.tryAcquire("exclusive", Duration.ofSeconds(30)).isEmpty(), "b got a lease a holds");
            assertTrue(a.tryAcquire("exclusive", Duration.ofSeconds(30)).isEmpty(), "a lease is not re-entrant");
            assertEquals(a.holder(), holderOf("exclusive"));

            first.get().close();
            Optional<Lease> second = b.tryAcquire("exclusive", Duration.ofSeconds(30));
            assertTrue(second.isPresent(), "a released lease goes to the next caller at once");
            assertTrue(second.get().token() > first.get().token());
            assertEquals(b.holder(), holderOf("exclusive"));
            assertTrue(a.tryAcquire("exclusive", Duration.ofSeconds(30)).isEmpty());
        }
    }

    /** 4 managers x 4 threads released at once by a latch, 25 names in turn: exactly one winner each time. */
    @Test
    void racingThreadsExactlyOneWins() throws Exception {
        int managers = 4;
        int threadsPerManager = 4;
        List<LeaseManager> ms = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(managers * threadsPerManager);
        try {
            for (int i = 0; i < managers; i++) {
                ms.add(LeaseManager.create(pool));
            }
            for (int round = 0; round < 25; round++) {
                String name = "race-" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Optional<Lease>>> tries = new ArrayList<>();
                for (LeaseManager m : ms) {
                    for (int t = 0; t < threadsPerManager; t++) {
                        tries.add(threads.submit(() -> {
                            go.await();
                            try {
                                return m.tryAcquire(name, Duration.ofSeconds(30));
                            } finally {
                                FencedTestExtension.unbind(); // pooled test thread: leave nothing bound
                            }
                        }));
                    }
                }
                go.countDown();
                List<Lease> winners = new ArrayList<>();
                for (Future<Optional<Lease>> f : tries) {
                    f.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
                }
                assertEquals(1, winners.size(), "round " + round + ": winners " + winners);
                assertEquals(
                        winners.get(0).token(),
                        db.queryLong("SELECT token FROM fenced_lease WHERE name = '" + name + "'"));
            }
        } finally {
            threads.shutdownNow();
            ms.forEach(LeaseManager::close);
        }
        assertEquals(
                0,
                db.queryLong("SELECT count(*) FROM fenced_lease WHERE name LIKE 'race-%' AND expires_at > now()"),
                "closing the managers released every lease");
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
}
