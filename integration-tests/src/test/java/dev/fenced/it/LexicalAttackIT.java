package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16's attacks on a real PostgreSQL: texts JSqlParser lexes differently from PostgreSQL, so that the guard
 * would land inside what PostgreSQL reads as a string or a comment. With a stale token no row may change: the
 * statement is refused (FN003), or fenced and refused as stale (FN001).
 */
class LexicalAttackIT {

    static TestDatabase db;
    static final long NEWER = 50;
    static final long STALE = 40;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE lx (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE ord (id int PRIMARY KEY, v text, \"order\" bigint)",
                "CREATE SCHEMA \"Sales\"",
                "CREATE TABLE \"Sales\".\"Totals\" (id int PRIMARY KEY, v text, last_token bigint)");
    }

    @BeforeEach
    void rows() {
        db.execute("TRUNCATE lx, ord, \"Sales\".\"Totals\"",
                "INSERT INTO lx VALUES (1, 'one', 1, " + NEWER + "), (2, 'two', 2, " + NEWER + ")",
                "INSERT INTO ord VALUES (1, 'one', " + NEWER + ")",
                "INSERT INTO \"Sales\".\"Totals\" VALUES (1, 'one', " + NEWER + ")");
    }

    static Connection connect(String... params) throws SQLException {
        Properties p = new Properties();
        p.setProperty("fenced.tables", "lx,ord,\"Sales\".\"Totals\"");
        p.setProperty("fenced.table.ord.column", "order");
        for (int i = 0; i < params.length; i += 2) {
            p.setProperty(params[i], params[i + 1]);
        }
        return DriverManager.getConnection(db.fencedUrl(), p);
    }

    static String snapshot() {
        StringBuilder b = new StringBuilder();
        try (Connection c = db.rawConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT id, v, n, last_token FROM lx ORDER BY id")) {
            while (rs.next()) {
                b.append(rs.getInt(1)).append('|').append(rs.getString(2)).append('|').append(rs.getLong(3))
                        .append('|').append(rs.getLong(4)).append(';');
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return b.toString();
    }

    /** Runs {@code sql} (a Statement, or a PreparedStatement without parameters) under a stale token. */
    static void staleChangesNothing(String sql, boolean prepared) throws SQLException {
        String before = snapshot();
        try (Connection c = connect(); FencingScope ignored = Fencing.bind(STALE)) {
            SQLException e = assertThrows(SQLException.class, () -> {
                if (prepared) {
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        ps.executeUpdate();
                    }
                } else {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate(sql);
                    }
                }
            }, sql);
            assertTrue(e instanceof UnsupportedStatementException || e instanceof StaleTokenException,
                    () -> sql + " -> " + e);
        }
        assertEquals(before, snapshot(), sql);
    }

    @Test
    void aTaggedDollarQuoteDoesNotSwallowTheGuard() throws SQLException {
        staleChangesNothing("UPDATE lx SET v = $a$x WHERE y$a$", false);
        staleChangesNothing("UPDATE lx SET v = $a$x WHERE y$a$", true);
        staleChangesNothing("INSERT INTO lx (id, v) VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET v = $a$x WHERE y$a$",
                false);
    }

    @Test
    void anEscapeStringDoesNotHideTheGuardInAComment() throws SQLException {
        staleChangesNothing("UPDATE lx SET v = E'\\' || '--' WHERE v = '\nWHERE id = 1 --'", false);
        staleChangesNothing("UPDATE lx SET v = E'\\' || '--' WHERE v = '\nWHERE id = 1 --'", true);
    }

    @Test
    void nestedCommentsMeanWhatPostgresMeans() throws SQLException {
        String sql = "UPDATE lx SET n = 100 - /* /* */ ( --*/\n10 - 1 /* /* */ ) --*/\nWHERE id = 1";
        staleChangesNothing(sql, false);
        try (Connection c = connect(); FencingScope ignored = Fencing.bind(NEWER + 1); Statement s = c.createStatement()) {
            try {
                assertEquals(1, s.executeUpdate(sql));
                assertEquals(89, db.queryLong("SELECT n FROM lx WHERE id = 1"), "PostgreSQL reads 100 - 10 - 1");
            } catch (UnsupportedStatementException refused) {
                assertEquals(1, db.queryLong("SELECT n FROM lx WHERE id = 1"));
            }
        }
    }

    @Test
    void dataShapedLikeTheMarkerIsNotAStaleToken() throws SQLException {
        db.execute("UPDATE lx SET v = 'fenced-stale:99:lx' WHERE id = 1");
        try (Connection c = connect(); FencingScope ignored = Fencing.bind(NEWER + 1);
             PreparedStatement ps = c.prepareStatement("UPDATE lx SET n = CAST(v AS bigint) WHERE id = 1")) {
            SQLException e = assertThrows(SQLException.class, ps::executeUpdate);
            assertFalse(e instanceof StaleTokenException, e::toString);
            assertEquals("22P02", e.getSQLState());
        }
        // the same through the function the UPDATE guard fails in: 22023, still no nonce, still not stale
        try (Connection c = connect(); FencingScope ignored = Fencing.bind(NEWER + 1);
             PreparedStatement ps = c.prepareStatement("UPDATE lx SET n = pg_catalog.pg_size_bytes(v) WHERE id = 1")) {
            SQLException e = assertThrows(SQLException.class, ps::executeUpdate);
            assertFalse(e instanceof StaleTokenException, e::toString);
            assertEquals("22023", e.getSQLState());
        }
    }

    @Test
    void aQuotedTableIsNamedInTheStaleError() throws SQLException {
        try (Connection c = connect(); FencingScope ignored = Fencing.bind(STALE);
             PreparedStatement ps = c.prepareStatement("UPDATE \"Sales\".\"Totals\" SET v = 'x' WHERE id = 1")) {
            StaleTokenException e = assertThrows(StaleTokenException.class, ps::executeUpdate);
            assertEquals("\"Sales\".\"Totals\"", e.table());
            assertEquals(NEWER, e.rowToken());
        }
    }

    @Test
    void aReservedWordAsFenceColumnIsQuoted() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(NEWER + 1)) {
                assertEquals(1, s.executeUpdate("UPDATE ord SET v = 'new' WHERE id = 1"));
                assertEquals(1, s.executeUpdate("INSERT INTO ord (id, v) VALUES (2, 'two')"));
            }
            try (FencingScope ignored = Fencing.bind(STALE)) {
                assertThrows(StaleTokenException.class, () -> s.executeUpdate("UPDATE ord SET v = 'old' WHERE id = 1"));
                assertThrows(StaleTokenException.class, () -> s.executeUpdate("DELETE FROM ord WHERE id = 2"));
            }
        }
        assertEquals(NEWER + 1, db.queryLong("SELECT \"order\" FROM ord WHERE id = 1"));
        assertEquals(NEWER + 1, db.queryLong("SELECT \"order\" FROM ord WHERE id = 2"));
    }
}
