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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Semantics 9: a row a newer holder deleted stays deleted for older holders. The newer holder (token 20)
 * deletes restaurant 77; the stale holder (token 5) must not bring it back by INSERT, by upsert, or by
 * slipping its insert into a delete-then-insert replacement, also when the two run at the same time under
 * READ COMMITTED.
 */
@Tag("server-sensitive")
class TombstoneIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)",
                "CREATE TABLE pairs (a int, b text, v int, last_token bigint, PRIMARY KEY (b, a))");
        pool = Pools.fenced(db, 4, "fenced.tables=totals,pairs");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE totals, pairs",
                "INSERT INTO totals VALUES (77, 100, 1), (78, 100, 1)",
                "INSERT INTO pairs VALUES (1, 'x', 0, 1)");
    }

    static int run(long token, String sql) throws SQLException {
        try (FencingScope ignored = Fencing.bind(token);
                Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            return ps.executeUpdate();
        }
    }

    static long amount(int id) {
        return db.queryLong("SELECT coalesce(max(amount), -1) FROM totals WHERE restaurant_id = " + id);
    }

    @Test
    void aStaleInsertCannotBringBackADeletedRow() throws SQLException {
        assertEquals(1, run(20, "DELETE FROM totals WHERE restaurant_id = 77"));
        StaleTokenException e = assertThrows(
                StaleTokenException.class, () -> run(5, "INSERT INTO totals (restaurant_id, amount) VALUES (77, 555)"));
        assertEquals(5, e.token());
        assertEquals(20, e.rowToken());
        assertEquals("totals", e.table());
        assertEquals(-1, amount(77), "the deleted row stays deleted");
    }

    @Test
    void aStaleUpsertCannotBringBackADeletedRow() throws SQLException {
        assertEquals(1, run(20, "DELETE FROM totals WHERE restaurant_id = 77"));
        assertThrows(
                StaleTokenException.class,
                () -> run(
                        5,
                        "INSERT INTO totals (restaurant_id, amount)"
                                + " VALUES (77, 555) ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount"));
        assertThrows(
                StaleTokenException.class,
                () -> run(
                        5, "INSERT INTO totals (restaurant_id, amount)" + " VALUES (77, 555) ON CONFLICT DO NOTHING"));
        assertEquals(-1, amount(77));
    }

    @Test
    void aStaleUpdateCannotMoveARowOntoADeletedKey() throws SQLException {
        assertEquals(1, run(20, "DELETE FROM totals WHERE restaurant_id = 77"));
        assertThrows(
                StaleTokenException.class,
                () -> run(5, "UPDATE totals SET restaurant_id = 77 WHERE restaurant_id = 78"));
        assertEquals(-1, amount(77));
        assertEquals(1, run(25, "UPDATE totals SET restaurant_id = 77, amount = 25 WHERE restaurant_id = 78"));
        assertEquals(25, amount(77));
    }

    @Test
    void theDeleterAndNewerHoldersMayInsertAgain() throws SQLException {
        assertEquals(1, run(20, "DELETE FROM totals WHERE restaurant_id = 77"));
        assertEquals(1, run(20, "INSERT INTO totals (restaurant_id, amount) VALUES (77, 20)"));
        assertEquals(1, run(21, "DELETE FROM totals WHERE restaurant_id = 77"));
        assertEquals(1, run(30, "INSERT INTO totals (restaurant_id, amount) VALUES (77, 30)"));
        assertEquals(30, amount(77));
        // other keys are not affected by the tombstone
        assertEquals(1, run(5, "INSERT INTO totals (restaurant_id, amount) VALUES (79, 5)"));
    }

    @Test
    void anUnfencedSectionMayInsertADeletedKey() throws Exception {
        assertEquals(1, run(20, "DELETE FROM totals WHERE restaurant_id = 77"));
        int inserted = Fencing.unfenced(() -> {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                return s.executeUpdate("INSERT INTO totals (restaurant_id, amount) VALUES (77, 1)");
            }
        });
        assertEquals(1, inserted);
        assertEquals(
                0, db.queryLong("SELECT count(*) FROM totals WHERE restaurant_id = 77 AND last_token IS NOT NULL"));
    }

    @Test
    void aCompositeKeyIsTombstonedAsAWhole() throws SQLException {
        assertEquals(1, run(20, "DELETE FROM pairs p USING (VALUES (1)) x(k) WHERE p.a = x.k AND p.b = 'x'"));
        assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO pairs (a, b, v) VALUES (1, 'x', 5)"));
        assertEquals(1, run(5, "INSERT INTO pairs (a, b, v) VALUES (1, 'y', 5)"));
        assertEquals(1, run(5, "INSERT INTO pairs (b, a, v) VALUES ('x', 2, 5)"));
        assertEquals(0, db.queryLong("SELECT count(*) FROM pairs WHERE a = 1 AND b = 'x'"));
    }

    @Test
    void aStaleInsertCannotSlipIntoADeleteThenInsertReplacement() throws SQLException {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("DELETE FROM totals WHERE restaurant_id = 77"));
            }
            c.commit();
            assertThrows(
                    StaleTokenException.class,
                    () -> run(5, "INSERT INTO totals (restaurant_id, amount) VALUES (77, 555)"));
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("INSERT INTO totals (restaurant_id, amount) VALUES (77, 2000)"));
            }
            c.commit();
        }
        assertEquals(2000, amount(77));
    }

    /**
     * The race a snapshot read would lose: the newer holder's DELETE is not committed yet when the stale
     * INSERT starts, so the INSERT's snapshot cannot see the tombstone; the INSERT waits on the deleted row's
     * key and must still be refused once the DELETE commits.
     */
    @Test
    void aConcurrentStaleInsertWaitsForTheDeleteAndIsRefused() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection newer = pool.getConnection()) {
            newer.setAutoCommit(false);
            try (FencingScope ignored = Fencing.bind(20);
                    Statement s = newer.createStatement()) {
                assertEquals(1, s.executeUpdate("DELETE FROM totals WHERE restaurant_id = 77"));
            }
            Future<Integer> stale = other.submit(() -> {
                try (Connection c = pool.getConnection()) {
                    awaitPid(c);
                    return runOn(c, 5, "INSERT INTO totals (restaurant_id, amount) VALUES (77, 555)");
                }
            });
            waitUntilBlocked();
            newer.commit();
            Exception e = assertThrows(Exception.class, stale::get);
            assertTrue(e.getCause() instanceof StaleTokenException, () -> "stale, not " + e.getCause());
        } finally {
            other.shutdownNow();
        }
        assertEquals(-1, amount(77));
    }

    private static volatile int stalePid;

    private static void awaitPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            stalePid = rs.getInt(1);
        }
    }

    private static int runOn(Connection c, long token, String sql) throws SQLException {
        try (FencingScope ignored = Fencing.bind(token);
                PreparedStatement ps = c.prepareStatement(sql)) {
            return ps.executeUpdate();
        }
    }

    /** Polls the server until the stale writer's backend waits on a lock: a condition, not a sleep. */
    private static void waitUntilBlocked() throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        try (Connection c = db.rawConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = ?" + " AND wait_event_type = 'Lock'")) {
            while (System.nanoTime() < deadline) {
                ps.setInt(1, stalePid);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) == 1) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        }
        throw new AssertionError("the stale INSERT never waited for the DELETE");
    }
}
