package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedStats;
import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * The nightly-totals job the scheduler tests run on two nodes, and the audit of its runs: each run reads the
 * total of restaurant 77, adds one and writes it back, so a lost update shows as a total below the number of
 * successful runs. A run may freeze between its read and its write. Every run that wrote is recorded with its
 * start and end; every refused write is kept; anything else is unexpected.
 */
final class JobAudit {

    static final String TABLE_DDL =
            "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)";

    private final List<long[]> runs = new ArrayList<>(); // [start, end] of every successful run, nanoTime
    private final List<Throwable> refused = new ArrayList<>();
    private final AtomicInteger unexpected = new AtomicInteger();
    private final CountDownLatch enough;
    private final long lostBefore = FencedStats.counters().get("fenced.writes.lease_lost");
    private final long staleBefore = FencedStats.counters().get("fenced.writes.stale");

    /** Starts an audit that is {@link #awaitEnough done} after {@code runs} successful runs. */
    JobAudit(TestDatabase db, int runs) {
        db.execute("DELETE FROM totals", "INSERT INTO totals VALUES (77, 0, NULL)");
        this.enough = new CountDownLatch(runs);
    }

    /**
     * One run of the job on the calling thread, which carries the run's token. {@code freeze} is called between
     * the read and the write; {@code ran}, if given, is counted down after a successful run.
     */
    void run(DataSource pool, BooleanSupplier freeze, CountDownLatch ran) {
        long start = System.nanoTime();
        try {
            long total = read(pool);
            freeze.getAsBoolean();
            write(pool, total + 1);
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

    void awaitEnough() throws InterruptedException {
        assertTrue(enough.await(60, TimeUnit.SECONDS), "the job stopped running");
    }

    /**
     * The frozen run's late write was refused (on the client, its lease lost; or by PostgreSQL, a newer token on
     * the row) and counted once; no two successful runs overlapped; the total counts every successful run once.
     */
    void assertOneLateWriteRefusedNoOverlapNoLostUpdate(TestDatabase db, String lease) {
        synchronized (runs) {
            assertEquals(0, unexpected.get(), "unexpected failures");
            assertEquals(1, refused.size(), "refused late writes: " + refused);
            Throwable r = refused.get(0);
            if (r instanceof LeaseLostException) {
                assertTrue(r.getMessage().contains(lease), r.getMessage());
            }
            assertEquals(lostBefore + staleBefore + 1, FencedStats.counters().get("fenced.writes.lease_lost")
                    + FencedStats.counters().get("fenced.writes.stale"), "the refused write is counted");
            List<long[]> sorted = new ArrayList<>(runs);
            sorted.sort(Comparator.comparingLong(x -> x[0]));
            for (int i = 1; i < sorted.size(); i++) {
                assertTrue(sorted.get(i)[0] > sorted.get(i - 1)[1], "runs " + (i - 1) + " and " + i + " overlap");
            }
            assertEquals(sorted.size(), db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"),
                    "the total counts every successful run once: no lost update");
        }
    }

    /**
     * Opens {@code pool}'s first connection and reads the total, so a node's first run does not pay the driver's
     * first connect (its catalog read) inside a lease with a short ttl.
     */
    static <T extends DataSource> T warmedUp(T pool) {
        try {
            read(pool);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return pool;
    }

    /** Waits for {@code latch} inside a job; a latch that never opens fails the run (as unexpected). */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static long read(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT amount FROM totals WHERE restaurant_id = 77");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void write(DataSource pool, long total) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = 77")) {
            ps.setLong(1, total);
            ps.executeUpdate();
        }
    }
}
