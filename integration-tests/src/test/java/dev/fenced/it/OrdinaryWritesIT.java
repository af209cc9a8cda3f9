package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 26: ordinary PostgreSQL writes that fenced used to refuse (FN003) though PostgreSQL runs them. Each runs raw
 * and through fenced with a current token (same rows and count as raw, the rows written carry the token), with a
 * stale token (refused, nothing changed) and with no token (refused, nothing changed).
 */
@Tag("server-sensitive")
class OrdinaryWritesIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n int, amount numeric, j jsonb, last_token bigint)",
                "CREATE TABLE src (id int, v text)",
                "INSERT INTO src VALUES (10, 's10'), (11, 's11')",
                "CREATE TABLE src2 (id int, v text)",
                "INSERT INTO src2 VALUES (12, 's12')");
        pool = Pools.fenced(db, 2, "fenced.tables=t");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    static Stream<Arguments> statements() {
        return Stream.of(
                Arguments.of("UPDATE t SET (v, n) = ROW('r', 9) WHERE id = 1", new Object[0]),
                Arguments.of("UPDATE t SET n = - - n WHERE id = 1", new Object[0]),
                Arguments.of("UPDATE t SET v = 'x' WHERE id = 1 AND v IS NOT NULL IS TRUE", new Object[0]),
                Arguments.of("UPDATE t SET v = 'x' WHERE id = 1 AND j @? '$.a'", new Object[0]),
                Arguments.of(
                        "UPDATE t SET v = ? WHERE id IN (SELECT id FROM t ORDER BY id OFFSET ? LIMIT ?)",
                        new Object[] {"o", 1, 2}),
                Arguments.of("UPDATE t SET amount = {fn abs(-28)} WHERE id = 1", new Object[0]),
                Arguments.of("INSERT INTO t (id, v) TABLE src", new Object[0]),
                Arguments.of("INSERT INTO t (id, v) (TABLE src) UNION ALL TABLE src2", new Object[0]));
    }

    static void seed(long token) {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t",
                "INSERT INTO t VALUES (1, 'a', 1, -5, '{\"a\": 1}', " + token + "), (2, 'b', 2, 3, '{}', " + token
                        + "), (3, NULL, 3, 1, '{\"a\": 2}', " + token + "), (4, 'd', 4, 2, NULL, " + token + ")");
    }

    /** The rows without their fence column. */
    static String rows() {
        return query("SELECT id, v, n, amount, j FROM t ORDER BY id");
    }

    static String tokens() {
        return query("SELECT id, last_token FROM t ORDER BY id");
    }

    static String query(String sql) {
        return db.rows(sql);
    }

    /** Without parameters, a plain Statement: pgjdbc reads no placeholders there, so {@code @?} is the operator. */
    static int execute(Connection c, String sql, Object[] params) throws SQLException {
        if (params.length == 0) {
            try (Statement s = c.createStatement()) {
                return s.executeUpdate(sql);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    static int fenced(Long token, String sql, Object[] params) throws SQLException {
        try (Connection c = pool.getConnection()) {
            if (token == null) {
                return execute(c, sql, params);
            }
            try (FencingScope ignored = Fencing.bind(token)) {
                return execute(c, sql, params);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("statements")
    void currentTokenLandsAsRawPostgreSqlDoes(String sql, Object[] params) throws SQLException {
        seed(5);
        int rawCount;
        try (Connection c = db.rawConnection()) {
            rawCount = execute(c, sql, params);
        }
        String raw = rows();
        seed(5);
        assertEquals(rawCount, fenced(9L, sql, params), sql);
        assertEquals(raw, rows(), sql);
        assertTrue(tokens().contains(",9;"), "the rows written carry the token: " + tokens());
    }

    @ParameterizedTest
    @MethodSource("statements")
    void staleTokenIsRefusedAndNothingChanges(String sql, Object[] params) {
        if (sql.startsWith("INSERT")) {
            return; // an insert of new keys has no older row to be stale against (tombstones: TombstoneIT)
        }
        seed(50);
        String before = rows() + tokens();
        assertThrows(StaleTokenException.class, () -> fenced(9L, sql, params), sql);
        assertEquals(before, rows() + tokens());
    }

    @ParameterizedTest
    @MethodSource("statements")
    void noTokenIsRefusedAndNothingChanges(String sql, Object[] params) {
        seed(5);
        String before = rows() + tokens();
        FencingException e = assertThrows(FencingException.class, () -> fenced(null, sql, params), sql);
        assertFalse(e instanceof UnsupportedStatementException, () -> "refused as unsupported: " + e.getMessage());
        assertEquals(before, rows() + tokens());
    }

    /**
     * With escape processing off pgjdbc sends {@code {fn ...}} as written and PostgreSQL refuses it; fenced must not
     * run the translated text instead. Same SQLState as raw, nothing changed, even with a current token.
     */
    @org.junit.jupiter.api.Test
    void escapesWithEscapeProcessingOffAreRefusedAsRawPostgreSqlRefusesThem() throws SQLException {
        String sql = "UPDATE t SET amount = {fn abs(-28)} WHERE id = 1";
        seed(5);
        String before = rows() + tokens();
        SQLException raw;
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement()) {
            s.setEscapeProcessing(false);
            raw = assertThrows(SQLException.class, () -> s.executeUpdate(sql));
        }
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(9)) {
            s.setEscapeProcessing(false);
            SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate(sql));
            assertEquals(raw.getSQLState(), e.getSQLState(), e::getMessage);
            assertTrue(e.getMessage().contains("escape processing is off"), e::getMessage);
            SQLException batch = assertThrows(SQLException.class, () -> s.addBatch(sql));
            assertEquals(raw.getSQLState(), batch.getSQLState(), batch::getMessage);
            assertEquals(before, rows() + tokens(), "nothing changed");
            s.setEscapeProcessing(true);
            assertEquals(1, s.executeUpdate(sql), "with escape processing on, the escape is translated and fenced");
        }
        assertEquals("28,9;", query("SELECT amount, last_token FROM t WHERE id = 1"));
    }
}
