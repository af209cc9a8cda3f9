package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many writers with interleaved tokens hammer a few rows. Each writes its own token as the value too, so
 * the table can be audited: a row's value must always be the highest token that was ever accepted for it,
 * and every refusal must have had a newer token on the row. Counted and asserted exactly.
 */
@Tag("jvm-sensitive")
class ConcurrentWritersIT {

    static final int ROWS = 8;
    static final int THREADS = 8;
    static final int WRITES_PER_THREAD = 400;

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE totals (id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)");
        for (int i = 0; i < ROWS; i++) {
            db.execute("INSERT INTO totals VALUES (" + i + ", 0, NULL)");
        }
        pool = Pools.fenced(db, THREADS, "fenced.tables=totals");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void anOlderTokenNeverOverwritesANewerOne() throws Exception {
        AtomicLong tokens = new AtomicLong();
        AtomicLong[] highestAccepted = new AtomicLong[ROWS];
        for (int i = 0; i < ROWS; i++) {
            highestAccepted[i] = new AtomicLong();
        }
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService workers = Executors.newFixedThreadPool(THREADS);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            results.add(workers.submit(() -> {
                long accepted = 0;
                long refused = 0;
                go.await();
                try (Connection c = pool.getConnection();
                        PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                    for (int i = 0; i < WRITES_PER_THREAD; i++) {
                        // tokens interleave across threads; some writers hold a token a little behind
                        long token = tokens.incrementAndGet()
                                - ThreadLocalRandom.current().nextInt(0, 4 * THREADS);
                        int row = ThreadLocalRandom.current().nextInt(ROWS);
                        if (token <= 0) {
                            continue;
                        }
                        try (FencingScope ignored = Fencing.bind(token)) {
                            ps.setLong(1, token);
                            ps.setInt(2, row);
                            assertEquals(1, ps.executeUpdate());
                            highestAccepted[row].accumulateAndGet(token, Math::max);
                            accepted++;
                        } catch (StaleTokenException e) {
                            assertTrue(e.rowToken() > token, "refused only for a newer row token");
                            refused++;
                        }
                    }
                } catch (SQLException e) {
                    throw new AssertionError(e);
                }
                return new long[] {accepted, refused};
            }));
        }
        go.countDown();
        long accepted = 0;
        long refused = 0;
        for (Future<long[]> f : results) {
            long[] r = f.get();
            accepted += r[0];
            refused += r[1];
        }
        workers.shutdown();
        for (int i = 0; i < ROWS; i++) {
            long value = db.queryLong("SELECT amount FROM totals WHERE id = " + i);
            long fence = db.queryLong("SELECT coalesce(last_token, 0) FROM totals WHERE id = " + i);
            assertEquals(highestAccepted[i].get(), value, "row " + i + " holds the highest accepted token's write");
            assertEquals(value, fence, "row " + i + " value and fence agree");
        }
        System.out.printf("concurrent writers: %d writes accepted, %d stale writes refused%n", accepted, refused);
        assertTrue(refused > 0, "the interleaving produced stale writes to refuse");
        assertTrue(accepted > refused, "most writes were current");
    }
}
