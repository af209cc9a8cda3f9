package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.shedlock.FencedLockProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ShedLock's own run loop on two nodes: each node has its own pool, its own FencedLockProvider (its own lease
 * manager) and a scheduler thread firing the nightly-totals job through {@link DefaultLockingTaskExecutor} every
 * few milliseconds. The job reads the total, adds one and writes it back: a lost update shows as a total below
 * the number of successful runs. Node A's first run freezes after its read (blocked on a latch) until node B,
 * once A's lockAtMostFor has run out, has run the job three times; then A writes its late total. It is refused,
 * and counted; no two successful runs overlap; the total is exactly the number of successful runs.
 */
class ShedLockTwoNodesTest {

    private static final String JOB = "nightly-totals";
    private static final Duration AT_MOST = Duration.ofMillis(800);
    private static final int RUNS = 12;

    private static TestDatabase db;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)");
    }

    /**
     * own-thread: A writes on its own thread, where its lost lease is noticed on the client (LeaseLostException).
     * copied-token: A hands the write to a worker it gave a copy of the token ({@code Fencing.bind}); refused as
     * well (the driver ties the copy to its lost lease; failing that, the database's fence would refuse it).
     */
    @ParameterizedTest
    @ValueSource(strings = {"own-thread", "copied-token"})
    void theFrozenNodesLateWriteIsRefusedAndRunsNeverOverlap(String how) throws Exception {
        db.execute("DELETE FROM totals", "INSERT INTO totals VALUES (77, 0, NULL)");
        CountDownLatch aRead = new CountDownLatch(1);
        CountDownLatch bRanThrice = new CountDownLatch(3);
        CountDownLatch resumeA = new CountDownLatch(1);
        CountDownLatch enough = new CountDownLatch(RUNS);
        AtomicBoolean aFrozenOnce = new AtomicBoolean();
        List<long[]> runs = new ArrayList<>(); // [start, end] of every successful run, nanoTime
        List<Throwable> refused = new ArrayList<>();
        AtomicInteger unexpected = new AtomicInteger();
        long lostBefore = FencedStats.counters().get("fenced.writes.lease_lost");
        long staleBefore = FencedStats.counters().get("fenced.writes.stale");

        try (Node a = new Node("a"); Node b = new Node("b")) {
            Runnable jobA = () -> a.job(() -> {
                if (aFrozenOnce.compareAndSet(false, true)) {
                    aRead.countDown();
                    await(resumeA);
                    return true;
                }
                return false;
            }, how, runs, refused, unexpected, null, enough);
            Runnable jobB = () -> b.job(() -> false, how, runs, refused, unexpected, bRanThrice, enough);

            a.start(jobA);
            assertTrue(aRead.await(30, TimeUnit.SECONDS), "node A never ran");
            b.start(jobB);
            assertTrue(bRanThrice.await(30, TimeUnit.SECONDS), "node B never took over");
            resumeA.countDown();
            assertTrue(enough.await(60, TimeUnit.SECONDS), "the job stopped running");
        }

        synchronized (runs) {
            assertEquals(0, unexpected.get(), "unexpected failures");
            assertEquals(1, refused.size(), "refused late writes: " + refused);
            Throwable r = refused.get(0);
            if (how.equals("own-thread")) {
                assertTrue(r instanceof LeaseLostException, r.toString());
                assertTrue(r.getMessage().contains(JOB), r.getMessage());
                assertEquals(lostBefore + 1, FencedStats.counters().get("fenced.writes.lease_lost"));
            } else {
                // The driver knows the copied token's lease is lost (the token is registered) and refuses on the
                // client; a copy it could not tie to the lease would meet the newer token in PostgreSQL.
                assertTrue(r instanceof LeaseLostException || r instanceof StaleTokenException, r.toString());
                assertEquals(lostBefore + staleBefore + 1, FencedStats.counters().get("fenced.writes.lease_lost")
                        + FencedStats.counters().get("fenced.writes.stale"));
            }
            List<long[]> sorted = new ArrayList<>(runs);
            sorted.sort(Comparator.comparingLong(x -> x[0]));
            for (int i = 1; i < sorted.size(); i++) {
                assertTrue(sorted.get(i)[0] > sorted.get(i - 1)[1], "runs " + (i - 1) + " and " + i + " overlap");
            }
            assertEquals(sorted.size(), db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"),
                    "the total counts every successful run once: no lost update");
            assertTrue(sorted.size() >= RUNS);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    interface Freeze {
        /** Called between the read and the write; true if this run froze. */
        boolean maybeFreeze();
    }

    /** One application instance: its pool, its lock provider, its scheduler thread. */
    static final class Node implements AutoCloseable {
        final HikariDataSource pool = Pools.fenced(db, 4, "fenced.tables=totals");
        final FencedLockProvider locks = new FencedLockProvider(pool);
        final DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(locks);
        final ScheduledExecutorService scheduler;

        Node(String name) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "scheduler-" + name));
        }

        /** What @Scheduled(fixedDelay = 5) with @SchedulerLock(name = JOB, lockAtMostFor = 800ms) does. */
        void start(Runnable job) {
            scheduler.scheduleWithFixedDelay(() -> {
                try {
                    executor.executeWithLock(job, new LockConfiguration(Instant.now(), JOB, AT_MOST, Duration.ZERO));
                } catch (RuntimeException e) {
                    // the scheduler logs and goes on; the job recorded what happened
                }
            }, 0, 5, TimeUnit.MILLISECONDS);
        }

        void job(Freeze freeze, String how, List<long[]> runs, List<Throwable> refused, AtomicInteger unexpected,
                 CountDownLatch ran, CountDownLatch enough) {
            long start = System.nanoTime();
            try {
                // What a job that hands work to its own worker threads passes them: the token, taken while valid.
                long token = Fencing.currentToken().orElseThrow();
                long total = read();
                boolean froze = freeze.maybeFreeze();
                if (froze && how.equals("copied-token")) {
                    CompletableFuture.runAsync(() -> {
                        try (FencingScope s = Fencing.bind(token)) {
                            write(total + 1);
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }).join();
                } else {
                    write(total + 1);
                }
                long end = System.nanoTime();
                synchronized (runs) {
                    runs.add(new long[] {start, end});
                }
                if (ran != null) {
                    ran.countDown();
                }
                enough.countDown();
            } catch (Throwable e) {
                Throwable cause = e;
                while (!(cause instanceof SQLException) && cause.getCause() != null) {
                    cause = cause.getCause();
                }
                synchronized (runs) {
                    if (cause instanceof LeaseLostException || cause instanceof StaleTokenException) {
                        refused.add(cause);
                    } else {
                        e.printStackTrace();
                        unexpected.incrementAndGet();
                    }
                }
            }
        }

        long read() throws SQLException {
            try (Connection c = pool.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT amount FROM totals WHERE restaurant_id = 77");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }

        void write(long total) throws SQLException {
            try (Connection c = pool.getConnection();
                 PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = 77")) {
                ps.setLong(1, total);
                ps.executeUpdate();
            }
        }

        @Override
        public void close() throws InterruptedException {
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
            locks.close();
            pool.close();
        }
    }
}
