package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * What tombstones cost: a fenced DELETE by key and a fenced INSERT by key, with tombstones (the default) and with
 * fenced.tombstones=false, in alternating rounds on one database. Reports medians; asserts only correctness
 * (timing assertions would be flaky on a shared machine). Output: the test's stdout in the failsafe report.
 */
class TombstoneCostIT {

    static final int ROUNDS = 20;
    static final int PER_ROUND = 300;

    @Test
    void measureDeleteAndInsertWithAndWithoutTombstones() throws SQLException {
        TestDatabase with = TestDatabase.create();
        TestDatabase without = TestDatabase.create();
        for (TestDatabase db : new TestDatabase[] {with, without}) {
            db.execute(
                    "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)");
        }
        long[][] nanos = new long[4][ROUNDS];
        try (HikariDataSource on = Pools.fenced(with, 1, "fenced.tables=totals");
                HikariDataSource off = Pools.fenced(without, 1, "fenced.tables=totals", "fenced.tombstones=false");
                FencingScope ignored = Fencing.bind(42)) {
            for (int round = -2; round < ROUNDS; round++) { // two warm-up rounds
                boolean onFirst = (round & 1) == 0;
                for (int pass = 0; pass < 2; pass++) {
                    boolean tombstones = onFirst == (pass == 0);
                    long[] t = cycle(tombstones ? on : off);
                    if (round >= 0) {
                        nanos[tombstones ? 0 : 2][round] = t[0];
                        nanos[tombstones ? 1 : 3][round] = t[1];
                    }
                }
            }
        }
        assertEquals(0, with.queryLong("SELECT count(*) FROM totals"));
        assertEquals(PER_ROUND, with.queryLong("SELECT count(*) FROM fenced_tombstone"));
        System.out.printf(
                "tombstone cost, median of %d rounds of %d, µs per statement: DELETE %.1f with, %.1f without;"
                        + " INSERT %.1f with, %.1f without%n",
                ROUNDS, PER_ROUND, median(nanos[0]), median(nanos[2]), median(nanos[1]), median(nanos[3]));
    }

    /** Inserts PER_ROUND rows, then deletes them, one statement each; returns ns per INSERT and per DELETE. */
    private static long[] cycle(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement insert =
                        c.prepareStatement("INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)");
                PreparedStatement delete = c.prepareStatement("DELETE FROM totals WHERE restaurant_id = ?")) {
            long t0 = System.nanoTime();
            for (int i = 0; i < PER_ROUND; i++) {
                insert.setInt(1, i);
                insert.setLong(2, i);
                insert.executeUpdate();
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < PER_ROUND; i++) {
                delete.setInt(1, i);
                assertEquals(1, delete.executeUpdate());
            }
            long t2 = System.nanoTime();
            return new long[] {(t2 - t1) / PER_ROUND, (t1 - t0) / PER_ROUND};
        }
    }

    private static double median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        return (v[v.length / 2] + v[(v.length - 1) / 2]) / 2.0 / 1000.0;
    }
}
