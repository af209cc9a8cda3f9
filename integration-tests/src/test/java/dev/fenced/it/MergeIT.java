package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * MERGE into a protected table: every action fenced, a stale MERGE changes nothing (not even its inserts), and
 * concurrent MERGEs under READ COMMITTED never let an older token overwrite a newer one.
 */
@Tag("server-sensitive")
class MergeIT {

    static TestDatabase db;
    static HikariDataSource pool;
    static int serverVersion;

    @BeforeAll
    static void start() throws SQLException {
        db = TestDatabase.create();
        // totals has no primary key, so no tombstones: MERGE ... DELETE is fenced there; keyed has one
        db.execute(
                "CREATE TABLE totals (id int, amount bigint NOT NULL, last_token bigint)",
                "CREATE TABLE keyed (id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)",
                "CREATE TABLE src (id int, amount bigint)");
        pool = Pools.fenced(db, 8, "fenced.tables=totals,keyed");
        try (Connection c = db.rawConnection()) {
            serverVersion = c.getMetaData().getDatabaseMajorVersion();
        }
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE totals, keyed, src",
                "INSERT INTO totals VALUES (1, 10, 5), (2, 20, 5), (3, 30, 9)",
                "INSERT INTO keyed SELECT * FROM totals",
                "INSERT INTO src VALUES (1, 100), (2, 200), (4, 400)");
    }

    static int run(long token, String sql) throws SQLException {
        try (FencingScope ignored = Fencing.bind(token);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    static int prepared(long token, String sql, long... params) throws SQLException {
        try (FencingScope ignored = Fencing.bind(token);
                Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setLong(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    static String table() {
        StringBuilder b = new StringBuilder();
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, amount, last_token FROM totals ORDER BY id")) {
            while (rs.next()) {
                b.append(rs.getInt(1))
                        .append('=')
                        .append(rs.getLong(2))
                        .append('@')
                        .append(rs.getString(3))
                        .append(' ');
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return b.toString().trim();
    }

    static final String UPSERT = "MERGE INTO totals t USING src s ON t.id = s.id"
            + " WHEN MATCHED AND s.amount > 150 THEN UPDATE SET amount = s.amount"
            + " WHEN MATCHED THEN DELETE"
            + " WHEN NOT MATCHED THEN INSERT (id, amount) VALUES (s.id, s.amount)";

    @Test
    void aCurrentMergeUpdatesDeletesAndInsertsWithItsToken() throws SQLException {
        assertEquals(3, run(9, UPSERT));
        assertEquals("2=200@9 3=30@9 4=400@9", table());
    }

    @Test
    void aStaleMergeChangesNothingNotEvenItsInserts() throws SQLException {
        db.execute("UPDATE totals SET last_token = 50 WHERE id = 1"); // only the DELETE's row is newer
        String before = table();
        StaleTokenException e = assertThrows(StaleTokenException.class, () -> run(9, UPSERT));
        assertEquals(50, e.rowToken());
        assertEquals(before, table());
        db.execute("UPDATE totals SET last_token = 5 WHERE id = 1", "UPDATE totals SET last_token = 50 WHERE id = 2");
        String before2 = table();
        assertThrows(StaleTokenException.class, () -> run(9, UPSERT)); // the UPDATE's row is newer
        assertEquals(before2, table());
    }

    @Test
    void aPreparedMergeBindsTheUsersParametersAndTheToken() throws SQLException {
        String sql = "MERGE INTO totals t USING (SELECT ?::int AS id, ?::bigint AS amount) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET amount = s.amount WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.amount)";
        assertEquals(1, prepared(9, sql, 2, 222));
        assertEquals(1, prepared(9, sql, 7, 777));
        assertTrue(table().contains("2=222@9") && table().contains("7=777@9"), table());
        assertThrows(StaleTokenException.class, () -> prepared(8, sql, 2, 1));
        assertTrue(table().contains("2=222@9"), table());
    }

    @Test
    void aPositionalValueReachingTheFenceColumnIsRefused() {
        assertThrows(
                SQLException.class,
                () -> run(
                        9,
                        "MERGE INTO totals t USING src s ON t.id = s.id"
                                + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.amount, 1)"));
        assertThrows(
                SQLException.class,
                () -> run(
                        9,
                        "MERGE INTO totals t USING src s ON t.id = s.id"
                                + " WHEN MATCHED THEN UPDATE SET last_token = 1"));
    }

    @Test
    void aMergeCannotInsertARowANewerHolderDeleted() throws SQLException {
        assertEquals(1, run(20, "DELETE FROM keyed WHERE id = 1"));
        assertThrows(
                StaleTokenException.class,
                () -> run(
                        9,
                        "MERGE INTO keyed t USING src s ON t.id = s.id"
                                + " WHEN NOT MATCHED THEN INSERT (id, amount) VALUES (s.id, s.amount)"));
        assertEquals(2, db.queryLong("SELECT count(*) FROM keyed"));
    }

    @Test
    void aMergeThatDeletesFromATableWithTombstonesLeavesThem() throws SQLException {
        String delete = "MERGE INTO keyed t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE";
        assertThrows(StaleTokenException.class, () -> run(4, delete), "rows 1 and 2 hold token 5");
        assertEquals(3, db.queryLong("SELECT count(*) FROM keyed"));
        assertEquals(2, run(9, delete));
        assertEquals(1, db.queryLong("SELECT count(*) FROM keyed"));
        assertThrows(StaleTokenException.class, () -> run(7, "INSERT INTO keyed VALUES (1, 11)"));
        assertEquals(1, run(9, "INSERT INTO keyed VALUES (2, 21)"), "the deleter's token may insert again");
        assertEquals(2, db.queryLong("SELECT count(*) FROM keyed"));
    }

    @Test
    void notMatchedBySourceAndReturningOnPostgreSQL17() throws SQLException {
        Assumptions.assumeTrue(serverVersion >= 17, "NOT MATCHED BY SOURCE and RETURNING need PostgreSQL 17");
        String sql = "MERGE INTO totals t USING src s ON t.id = s.id"
                + " WHEN NOT MATCHED BY SOURCE THEN DELETE"
                + " WHEN MATCHED THEN UPDATE SET amount = s.amount RETURNING merge_action(), t.id";
        try (FencingScope ignored = Fencing.bind(9);
                Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> actions = new ArrayList<>();
            while (rs.next()) {
                actions.add(rs.getString(1) + rs.getInt(2));
            }
            assertEquals(3, actions.size(), actions::toString);
        }
        assertEquals("1=100@9 2=200@9", table());
        db.execute("UPDATE totals SET last_token = 50 WHERE id = 2");
        String before = table();
        assertThrows(
                StaleTokenException.class,
                () -> run(
                        9,
                        "MERGE INTO totals t USING src s ON t.id = s.id + 100"
                                + " WHEN NOT MATCHED BY SOURCE AND t.id = 2 THEN UPDATE SET amount = 0"));
        assertEquals(before, table());
    }

    /**
     * Like ConcurrentWritersIT for UPDATE: writers with interleaved tokens MERGE their token as the value into a
     * few rows. A row's value must always be the
     * highest token accepted for it; every refusal must have met a newer token.
     */
    @Test
    void concurrentMergesNeverLetAnOlderTokenWin() throws Exception {
        db.execute("TRUNCATE totals", "INSERT INTO totals SELECT g, 0, NULL FROM generate_series(0, 5) g");
        int rows = 6;
        int threads = 6;
        int writes = 150;
        AtomicLong tokens = new AtomicLong(100);
        AtomicLong[] highest = new AtomicLong[rows];
        for (int i = 0; i < rows; i++) {
            highest[i] = new AtomicLong();
        }
        String sql = "MERGE INTO totals t USING (SELECT ?::int AS id, ?::bigint AS amount) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET amount = s.amount"
                + " WHEN NOT MATCHED THEN INSERT (id, amount) VALUES (s.id, s.amount)";
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(workers.submit(() -> {
                long accepted = 0;
                long refused = 0;
                go.await();
                try (Connection c = pool.getConnection();
                        PreparedStatement ps = c.prepareStatement(sql)) {
                    for (int i = 0; i < writes; i++) {
                        long token = tokens.incrementAndGet()
                                - ThreadLocalRandom.current().nextInt(0, 4 * threads);
                        int row = ThreadLocalRandom.current().nextInt(rows);
                        try (FencingScope ignored = Fencing.bind(token)) {
                            ps.setInt(1, row);
                            ps.setLong(2, token);
                            assertEquals(1, ps.executeUpdate());
                            highest[row].accumulateAndGet(token, Math::max);
                            accepted++;
                        } catch (StaleTokenException e) {
                            assertTrue(e.rowToken() > token, "refused only for a newer row token");
                            refused++;
                        }
                    }
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
        for (int i = 0; i < rows; i++) {
            assertEquals(highest[i].get(), db.queryLong("SELECT amount FROM totals WHERE id = " + i), "row " + i);
            assertEquals(highest[i].get(), db.queryLong("SELECT last_token FROM totals WHERE id = " + i), "row " + i);
        }
        System.out.printf("concurrent MERGE: %d accepted, %d stale refused%n", accepted, refused);
        assertTrue(refused > 0, "the interleaving produced stale writes to refuse");
    }
}
