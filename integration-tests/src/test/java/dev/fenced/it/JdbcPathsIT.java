package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.internal.jdbc.FencedConnection;
import dev.fenced.it.support.TestDatabase;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGStatement;

/**
 * JDBC objects reachable from a fenced connection never run SQL around the driver: updatable result sets,
 * array and refcursor result sets, vendor unwraps, and statements prepared inside an unfenced section.
 */
class JdbcPathsIT {

    static TestDatabase db;
    static String url;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE plain (id int PRIMARY KEY, amount bigint)");
        url = db.fencedUrl("fenced.tables=totals");
    }

    @BeforeEach
    void rows() {
        db.execute(
                "TRUNCATE totals, plain", "INSERT INTO totals VALUES (1, 10, 20)", "INSERT INTO plain VALUES (1, 10)");
    }

    private static void assertUntouched() {
        assertEquals(1, db.queryLong("SELECT count(*) FROM ONLY totals"));
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
        assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE id = 1"));
    }

    @Test
    void updatableResultSetsOverAProtectedTableRefuseEveryWrite() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                FencingScope ignored = Fencing.bind(5)) {
            try (ResultSet rs = s.executeQuery("SELECT id, amount FROM totals")) {
                assertTrue(rs.next());
                rs.updateLong("amount", 99);
                UnsupportedStatementException e = assertThrows(UnsupportedStatementException.class, rs::updateRow);
                assertTrue(e.getMessage().contains("totals"), e.getMessage());
                assertThrows(UnsupportedStatementException.class, rs::deleteRow);
                rs.moveToInsertRow();
                rs.updateInt("id", 2);
                rs.updateLong("amount", 7);
                assertThrows(UnsupportedStatementException.class, rs::insertRow);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id, amount FROM totals WHERE id = ?",
                    ResultSet.TYPE_SCROLL_INSENSITIVE,
                    ResultSet.CONCUR_UPDATABLE)) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    rs.updateLong("amount", 98);
                    assertThrows(UnsupportedStatementException.class, rs::updateRow);
                }
            }
        }
        assertUntouched();
    }

    @Test
    void anUpdatableResultSetOverAChildMadeBehindFencedsBackRefusesRowWrites() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE)) {
            s.executeQuery("SELECT 1").close();
            db.execute(
                    "CREATE TABLE behind_back (PRIMARY KEY (id)) INHERITS (totals)",
                    "INSERT INTO behind_back VALUES (7, 10, 20)");
            try (ResultSet rs = s.executeQuery("SELECT id, amount FROM behind_back WHERE id = 7")) {
                assertTrue(rs.next());
                rs.updateLong("amount", 0);
                assertThrows(UnsupportedStatementException.class, rs::updateRow);
            }
        } finally {
            db.execute("DROP TABLE IF EXISTS behind_back");
        }
        assertUntouched();
    }

    @Test
    void updatableResultSetsOverOtherTablesStillWork() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                ResultSet rs = s.executeQuery("SELECT id, amount FROM plain")) {
            assertTrue(rs.next());
            rs.updateLong("amount", 11);
            rs.updateRow();
        }
        assertEquals(11, db.queryLong("SELECT amount FROM plain"));
    }

    @Test
    void arrayResultSetsLeadBackToTheFencedConnection() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ARRAY[1, 2]")) {
            assertTrue(rs.next());
            Array array = rs.getArray(1);
            try (ResultSet elements = array.getResultSet()) {
                Connection reached = elements.getStatement().getConnection();
                assertInstanceOf(FencedConnection.class, reached);
                assertRefusesUnfencedWrite(reached);
            }
            Array made = c.createArrayOf("int4", new Object[] {1, 2});
            try (ResultSet elements = made.getResultSet()) {
                assertInstanceOf(FencedConnection.class, elements.getStatement().getConnection());
            }
            Object asObject = rs.getObject(1);
            try (ResultSet elements = ((Array) asObject).getResultSet()) {
                assertInstanceOf(FencedConnection.class, elements.getStatement().getConnection());
            }
        }
        assertUntouched();
    }

    @Test
    void aRefcursorResultSetLeadsBackToTheFencedConnection() throws Exception {
        db.execute("CREATE OR REPLACE FUNCTION open_cursor() RETURNS refcursor LANGUAGE plpgsql AS"
                + " $$ DECLARE r refcursor; BEGIN OPEN r FOR SELECT 1; RETURN r; END $$");
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT open_cursor()")) {
                assertTrue(rs.next());
                try (ResultSet cursor = (ResultSet) rs.getObject(1)) {
                    Connection reached = cursor.getStatement().getConnection();
                    assertInstanceOf(FencedConnection.class, reached);
                    assertRefusesUnfencedWrite(reached);
                }
            }
            try (CallableStatement cs = c.prepareCall("{? = call open_cursor()}")) {
                cs.registerOutParameter(1, java.sql.Types.REF_CURSOR);
                cs.execute();
                try (ResultSet cursor = (ResultSet) cs.getObject(1)) {
                    assertInstanceOf(
                            FencedConnection.class, cursor.getStatement().getConnection());
                }
            }
            c.rollback();
        }
        assertUntouched();
    }

    @Test
    void vendorUnwrapsOfStatementsCannotRunSql() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement();
                PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            PGStatement pg = s.unwrap(PGStatement.class);
            pg.setPrepareThreshold(3);
            assertEquals(3, pg.getPrepareThreshold());
            assertFalse(pg instanceof Statement, "the vendor view of a statement must not be a raw statement");
            assertFalse(ps.unwrap(PGStatement.class) instanceof Statement);
            assertTrue(s.isWrapperFor(PGStatement.class));
            assertThrows(SQLException.class, () -> s.unwrap(Class.forName("org.postgresql.jdbc.PgStatement")));
            assertThrows(
                    SQLException.class,
                    () -> c.unwrap(
                            Class.forName("org.postgresql.core.BaseConnection").asSubclass(Object.class)));
        }
        assertUntouched();
    }

    @Test
    void aCallPreparedInsideAnUnfencedSectionIsDecidedWhenItRuns() throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            CallableStatement cs = Fencing.unfenced(() -> c.prepareCall("TRUNCATE totals"));
            assertThrows(UnsupportedStatementException.class, cs::execute);
            assertThrows(UnsupportedStatementException.class, cs::executeUpdate);
            cs.close();
        }
        assertUntouched();
    }

    @Test
    void anSqlPrepareMadeInsideAnUnfencedSectionCannotBeExecutedOutsideIt() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            Fencing.unfenced(() -> s.execute("PREPARE zero_out AS UPDATE totals SET amount = 0"));
            assertThrows(UnsupportedStatementException.class, () -> s.execute("EXECUTE zero_out"));
            assertThrows(UnsupportedStatementException.class, () -> s.execute("SELECT 1; execute  zero_out"));
            assertThrows(UnsupportedStatementException.class, () -> s.execute("EXPLAIN ANALYZE EXECUTE zero_out"));
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.execute("EXPLAIN (ANALYZE, BUFFERS) EXECUTE \"zero_out\""));
            try (FencingScope ignored = Fencing.bind(5)) {
                assertThrows(UnsupportedStatementException.class, () -> s.executeUpdate("EXECUTE zero_out"));
            }
            Fencing.unfenced(
                    () -> s.execute("DO $$ BEGIN EXECUTE 'PREPARE p2 AS DELETE FROM ' || 'tot' || 'als'; END $$"));
            assertThrows(UnsupportedStatementException.class, () -> s.execute("EXECUTE p2"));
            s.execute("PREPARE harmless AS SELECT 1");
            s.execute("EXECUTE harmless");
        }
        assertUntouched();
    }

    @Test
    void aPreparedWriteFollowedByDdlLearnsTheNewView() throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                FencingScope ignored = Fencing.bind(30)) {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE totals SET amount = ? WHERE id = 1; CREATE VIEW totals_after AS SELECT * FROM totals")) {
                ps.setLong(1, 12);
                ps.execute();
            }
            try (Statement s = c.createStatement()) {
                assertThrows(
                        UnsupportedStatementException.class,
                        () -> s.executeUpdate("UPDATE totals_after SET amount = 0"));
            }
        }
        assertEquals(12, db.queryLong("SELECT amount FROM totals"));
    }

    private static void assertRefusesUnfencedWrite(Connection reached) {
        assertThrows(FencingException.class, () -> {
            try (Statement w = reached.createStatement()) {
                w.executeUpdate("UPDATE totals SET amount = 0");
            }
        });
    }
}
