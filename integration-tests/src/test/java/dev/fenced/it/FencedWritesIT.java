package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every write path on real PostgreSQL: multi-row, upsert, delete, batches, plain statements, keys. */
class FencedWritesIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL DEFAULT 0,"
                        + " last_token bigint)",
                "CREATE TABLE orders (id serial PRIMARY KEY, restaurant_id int, amount bigint, last_token bigint)");
        pool = Pools.fenced(db, 4, "fenced.tables=totals,orders");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.clearTombstones(); // rows deleted by a test come back with their old tokens
        db.execute("TRUNCATE totals, orders", "INSERT INTO totals VALUES (1, 10, 5), (2, 20, 5), (3, 30, 9)");
    }

    private static long amount(int id) {
        return db.queryLong("SELECT amount FROM totals WHERE restaurant_id = " + id);
    }

    @Test
    void aStatementTouchingOneNewerRowChangesNoRow() throws SQLException {
        try (FencingScope ignored = Fencing.bind(7);
                Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = amount + ?")) {
            ps.setLong(1, 1);
            StaleTokenException e = assertThrows(StaleTokenException.class, ps::executeUpdate);
            assertEquals(9, e.rowToken());
        }
        assertEquals(10, amount(1));
        assertEquals(20, amount(2));
        assertEquals(5, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
    }

    @Test
    void theTokenIsReadAtExecuteTimeFromOnePreparedStatement() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = ?")) {
            ps.setLong(1, 100);
            ps.setInt(2, 1);
            try (FencingScope ignored = Fencing.bind(10)) {
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(10, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
            try (FencingScope ignored = Fencing.bind(12)) {
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(12, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
            try (FencingScope ignored = Fencing.bind(11)) {
                assertThrows(StaleTokenException.class, ps::executeUpdate);
            }
        }
        assertEquals(12, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
    }

    @Test
    void upsertInsertsWithTheTokenAndGuardsItsUpdate() throws SQLException {
        String upsert = "INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)"
                + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount";
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(upsert)) {
            try (FencingScope ignored = Fencing.bind(20)) {
                ps.setInt(1, 4);
                ps.setLong(2, 40);
                assertEquals(1, ps.executeUpdate());
                ps.setInt(1, 3);
                ps.setLong(2, 33);
                assertEquals(1, ps.executeUpdate());
            }
            try (FencingScope ignored = Fencing.bind(15)) {
                ps.setInt(1, 4);
                ps.setLong(2, 999);
                assertThrows(StaleTokenException.class, ps::executeUpdate);
            }
        }
        assertEquals(40, amount(4));
        assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 4"));
        assertEquals(33, amount(3));
    }

    @Test
    void deleteIsFencedAndLeavesNewerRowsAlone() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM totals WHERE restaurant_id IN (?, ?)")) {
            ps.setInt(1, 1);
            ps.setInt(2, 3);
            try (FencingScope ignored = Fencing.bind(8)) {
                StaleTokenException e = assertThrows(StaleTokenException.class, ps::executeUpdate);
                assertEquals(9, e.rowToken());
            }
            assertEquals(3, db.queryLong("SELECT count(*) FROM totals"));
            try (FencingScope ignored = Fencing.bind(9)) {
                assertEquals(2, ps.executeUpdate());
            }
        }
        assertEquals(1, db.queryLong("SELECT count(*) FROM totals"));
    }

    @Test
    void aDeleteDoesNotTripOnNewerRowsItsWhereExcludes() throws SQLException {
        // Row 3 holds token 9; deleting row 1 with token 6 must not look at it, whatever the plan.
        try (FencingScope ignored = Fencing.bind(6);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SET enable_indexscan = off");
            s.execute("SET enable_bitmapscan = off");
            assertEquals(1, s.executeUpdate("DELETE FROM totals WHERE restaurant_id = 1"));
        }
    }

    @Test
    void preparedBatchesCarryTheToken() throws SQLException {
        try (FencingScope ignored = Fencing.bind(30);
                Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO orders (restaurant_id, amount) VALUES (?, ?)")) {
            for (int i = 0; i < 50; i++) {
                ps.setInt(1, i % 3 + 1);
                ps.setLong(2, i);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            assertEquals(50, counts.length);
        }
        assertEquals(50, db.queryLong("SELECT count(*) FROM orders WHERE last_token = 30"));
    }

    @Test
    void aStaleRowInABatchFailsTheBatchWithStaleTokenException() throws SQLException {
        try (FencingScope ignored = Fencing.bind(8);
                Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = ?")) {
            c.setAutoCommit(false);
            for (int id = 1; id <= 3; id++) {
                ps.setLong(1, 1000 + id);
                ps.setInt(2, id);
                ps.addBatch();
            }
            StaleTokenException e = assertThrows(StaleTokenException.class, ps::executeBatch);
            assertEquals("totals", e.table());
            c.rollback();
            c.setAutoCommit(true);
        }
        assertEquals(10, amount(1));
    }

    @Test
    void plainStatementsAndTheirBatchesAreFencedToo() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(41)) {
                assertEquals(1, s.executeUpdate("UPDATE totals SET amount = 1 WHERE restaurant_id = 1"));
                s.addBatch("UPDATE totals SET amount = 2 WHERE restaurant_id = 2");
                s.addBatch("INSERT INTO orders (restaurant_id, amount) VALUES (2, 2)");
                assertArrayEquals(new int[] {1, 1}, s.executeBatch());
            }
            try (FencingScope ignored = Fencing.bind(40)) {
                assertThrows(
                        StaleTokenException.class,
                        () -> s.executeUpdate("UPDATE totals SET amount = 9 WHERE restaurant_id = 1"));
            }
        }
        assertEquals(41, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 2"));
        assertEquals(41, db.queryLong("SELECT last_token FROM orders"));
    }

    @Test
    void generatedKeysAndReturningWorkAsWithoutFencing() throws SQLException {
        try (FencingScope ignored = Fencing.bind(50);
                Connection c = pool.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO orders (restaurant_id, amount) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setInt(1, 1);
                ps.setLong(2, 5);
                assertEquals(1, ps.executeUpdate());
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    assertTrue(keys.getInt("id") > 0);
                    assertEquals(ps, keys.getStatement());
                }
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE totals SET amount = ? WHERE restaurant_id = ? RETURNING restaurant_id, amount, last_token")) {
                ps.setLong(1, 77);
                ps.setInt(2, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(2, rs.getInt(1));
                    assertEquals(77, rs.getLong(2));
                    assertEquals(50, rs.getLong(3));
                }
            }
        }
    }

    @Test
    void parameterMetadataShowsTheUsersParametersOnly() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = ?")) {
            ParameterMetaData meta = ps.getParameterMetaData();
            assertEquals(2, meta.getParameterCount());
            assertEquals(Types.BIGINT, meta.getParameterType(1));
            assertEquals(Types.INTEGER, meta.getParameterType(2));
            SQLException e = assertThrows(SQLException.class, () -> ps.setInt(3, 1));
            assertTrue(e.getMessage().contains("out of range: 3, number of columns: 2"), e.getMessage());
        }
    }

    @Test
    void anUnfencedSectionWritesWithoutTouchingTheFence() throws Exception {
        Fencing.unfenced(() -> {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                return s.executeUpdate("UPDATE totals SET amount = 0");
            }
        });
        assertEquals(0, amount(3));
        assertEquals(9, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 3"));
    }

    @Test
    void serverSidePreparedStatementsSeeOneShapeForEveryToken() throws SQLException {
        // pgjdbc switches to a named server-side statement after prepareThreshold (5) executions; the text
        // must not change with the token, or every token would be a new statement.
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = ?")) {
            for (int t = 100; t < 110; t++) {
                try (FencingScope ignored = Fencing.bind(t)) {
                    ps.setLong(1, t);
                    ps.setInt(2, 1);
                    assertEquals(1, ps.executeUpdate());
                }
            }
            assertTrue(ps.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare());
        }
        assertEquals(109, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
    }
}
