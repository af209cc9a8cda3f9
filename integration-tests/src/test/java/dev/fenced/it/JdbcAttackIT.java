package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.TestDatabase;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An outsider's attacks on the JDBC side, in enforce mode with a stale token (5, the rows carry 20): every
 * object reached from a fenced connection, however it was reached, writes only fenced, so the stale write
 * never lands.
 */
class JdbcAttackIT {

    private static final String STALE_UPDATE = "UPDATE totals SET amount = 0 WHERE id = 1";

    private static TestDatabase fresh() {
        TestDatabase db = TestDatabase.create();
        db.execute("CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 10, 20)",
                "CREATE FUNCTION cur() RETURNS refcursor LANGUAGE plpgsql AS"
                        + " $$ DECLARE c refcursor; BEGIN OPEN c FOR SELECT * FROM totals; RETURN c; END $$");
        return db;
    }

    private static void assertUntouched(TestDatabase db) {
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
        assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE id = 1"));
    }

    /** Every way back to a connection from {@code rs}: each must be the fenced one, and its writes fenced. */
    private static void assertLeadsBack(Connection fenced, ResultSet rs) throws SQLException {
        Statement owner = rs.getStatement();
        if (owner != null) {
            assertTrue(owner.getConnection() == fenced, "a result set's statement leads to " + owner.getConnection());
        }
        assertThrows(SQLException.class, () -> rs.unwrap(Class.forName("org.postgresql.jdbc.PgResultSet")));
        assertThrows(SQLException.class, () -> rs.unwrap(Class.forName("org.postgresql.core.BaseStatement")));
    }

    /** Every row write an updatable result set could make is refused (pgjdbc would send it raw). */
    private static void assertRowWritesRefused(ResultSet rs) throws SQLException {
        if (rs.getConcurrency() != ResultSet.CONCUR_UPDATABLE) {
            return;
        }
        assertTrue(rs.next());
        rs.updateLong("amount", 0);
        assertThrows(SQLException.class, rs::updateRow);
        assertThrows(SQLException.class, rs::deleteRow);
    }

    @Test
    void resultSetsOfEveryOriginLeadBackToFencedObjects() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             FencingScope ignored = Fencing.bind(5)) {
            List<ResultSet> reached = new ArrayList<>();
            Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
            // a multi-result text: the second result set
            assertFalse(s.execute("SET application_name = 'x'; SELECT * FROM totals"));
            assertTrue(s.getMoreResults());
            reached.add(s.getResultSet());
            // generated keys of a fenced insert
            Statement keys = c.createStatement();
            keys.executeUpdate("INSERT INTO totals (id, amount) VALUES (3, 1)", Statement.RETURN_GENERATED_KEYS);
            reached.add(keys.getGeneratedKeys());
            // metadata, arrays, a refcursor as an object and as a ResultSet, a callable's OUT refcursor
            reached.add(c.getMetaData().getTables(null, null, "totals", null));
            reached.add(c.createArrayOf("int4", new Object[] {1, 2}).getResultSet());
            c.setAutoCommit(false);
            try (Statement q = c.createStatement(); ResultSet r = q.executeQuery("SELECT cur()")) {
                assertTrue(r.next());
                reached.add((ResultSet) r.getObject(1));
                try (ResultSet again = q.executeQuery("SELECT cur()")) {
                    assertTrue(again.next());
                    // getObject(1, ResultSet.class) pgjdbc refuses for a refcursor; the map form is the other door
                    assertThrows(SQLException.class, () -> again.getObject(1, ResultSet.class));
                    reached.add((ResultSet) again.getObject(1, java.util.Map.of()));
                }
            }
            CallableStatement call = c.prepareCall("{? = call cur()}");
            call.registerOutParameter(1, Types.REF_CURSOR);
            call.execute();
            reached.add((ResultSet) call.getObject(1));
            for (ResultSet rs : reached) {
                assertLeadsBack(c, rs);
                Statement owner = rs.getStatement();
                if (owner != null) {
                    try (Statement w = owner.getConnection().createStatement()) {
                        w.execute("SAVEPOINT s");
                        assertInstanceOf(dev.fenced.StaleTokenException.class,
                                assertThrows(SQLException.class, () -> w.executeUpdate(STALE_UPDATE)));
                        w.execute("ROLLBACK TO SAVEPOINT s");
                    }
                }
            }
            c.rollback();
            db.execute("DELETE FROM totals WHERE id = 3");
        }
        assertUntouched(db);
    }

    @Test
    void updatableResultSetsFromEveryOriginRefuseRowWrites() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             FencingScope ignored = Fencing.bind(5)) {
            c.setAutoCommit(false);
            int type = ResultSet.TYPE_SCROLL_INSENSITIVE;
            int updatable = ResultSet.CONCUR_UPDATABLE;
            try (Statement s = c.createStatement(type, updatable)) {
                assertRowWritesRefused(s.executeQuery("SELECT * FROM totals"));
                assertRowWritesRefused(s.executeQuery("select * from \"totals\" where id = 1"));
                assertRowWritesRefused(s.executeQuery("SELECT * FROM public.totals"));
            }
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM totals WHERE id = ?", type, updatable)) {
                p.setInt(1, 1);
                assertRowWritesRefused(p.executeQuery());
            }
            try (CallableStatement call = c.prepareCall("SELECT * FROM totals", type, updatable)) {
                assertRowWritesRefused(call.executeQuery());
            }
            c.rollback();
        }
        assertUntouched(db);
    }

    @Test
    void everyExecuteFormOfAStaleWriteIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             FencingScope ignored = Fencing.bind(5)) {
            try (Statement s = c.createStatement()) {
                s.executeLargeUpdate(STALE_UPDATE);
                s.setEscapeProcessing(false);
                s.executeLargeUpdate(STALE_UPDATE);
                s.addBatch(STALE_UPDATE);
                s.addBatch("SELECT 1");
                s.executeLargeBatch();
            } catch (SQLException expected) {
                // a stale write is refused; which form refused it first does not matter
            }
            try (Statement s = c.createStatement()) {
                s.addBatch("ALTER TABLE totals ADD COLUMN IF NOT EXISTS note text");
                assertThrows(SQLException.class, () -> s.addBatch(STALE_UPDATE));
            }
            try (PreparedStatement p = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = 1")) {
                p.setLong(1, 0);
                p.addBatch();
                assertThrows(SQLException.class, p::executeLargeBatch);
                assertThrows(SQLException.class, p::executeLargeUpdate);
            }
            assertThrows(SQLException.class, () -> c.prepareCall(STALE_UPDATE));
            assertEquals(c.nativeSQL("SELECT 1"), "SELECT 1");
        }
        assertUntouched(db);
    }

    @Test
    void vendorViewsCannotRunSql() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             Statement s = c.createStatement()) {
            Object view = s.unwrap(Class.forName("org.postgresql.PGStatement"));
            assertFalse(view instanceof Statement, "a PGStatement view is not a Statement");
            for (String raw : new String[] {"org.postgresql.core.BaseConnection", "org.postgresql.jdbc.PgConnection",
                    "org.postgresql.jdbc.PgStatement", "org.postgresql.core.BaseStatement"}) {
                Class<?> type = Class.forName(raw);
                assertThrows(SQLException.class, () -> s.unwrap(type), raw);
                assertThrows(SQLException.class, () -> c.getMetaData().unwrap(type), raw);
            }
            assertInstanceOf(Connection.class, c.unwrap(Class.forName("org.postgresql.PGConnection")),
                    "the one documented raw door");
        }
    }

    @Test
    void aStatementPreparedBeforeItsTargetExistedIsCheckedWhenItRuns() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             PreparedStatement ps = c.prepareStatement("UPDATE later SET amount = ? WHERE id = 1");
             CallableStatement call = c.prepareCall("UPDATE later SET amount = 2 WHERE id = 1");
             FencingScope ignored = Fencing.bind(5)) {
            db.execute("CREATE VIEW later AS SELECT * FROM totals");
            ps.setLong(1, 0);
            assertThrows(SQLException.class, ps::executeUpdate);
            assertThrows(SQLException.class, call::executeUpdate);
        }
        assertUntouched(db);
    }

    @Test
    void anSqlExecutePreparedEarlierIsCheckedWhenItRuns() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             Statement s = c.createStatement(); FencingScope ignored = Fencing.bind(5)) {
            s.execute("PREPARE w AS SELECT 1");
            try (PreparedStatement ps = c.prepareStatement("EXECUTE w")) {
                ps.execute();
                Fencing.unfenced(() -> s.execute("DEALLOCATE w; PREPARE w AS UPDATE totals SET amount = 0"));
                assertThrows(SQLException.class, ps::execute);
            }
        }
        assertUntouched(db);
    }

    @Test
    void aBatchIsCheckedAgainWhenItRuns() throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE TABLE kid (id int NOT NULL, amount bigint, last_token bigint)",
                "INSERT INTO kid VALUES (2, 10, 20)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             Statement s = c.createStatement(); Statement other = c.createStatement();
             FencingScope ignored = Fencing.bind(5)) {
            // a relation created between addBatch and executeBatch
            s.addBatch("UPDATE soon SET amount = 0 WHERE id = 1");
            db.execute("CREATE VIEW soon AS SELECT * FROM totals");
            assertThrows(SQLException.class, s::executeBatch);
            // an SQL EXECUTE whose name was prepared again in between
            other.execute("PREPARE w AS SELECT 1");
            s.addBatch("EXECUTE w");
            Fencing.unfenced(() -> other.execute("DEALLOCATE w; PREPARE w AS UPDATE totals SET amount = 0"));
            assertThrows(SQLException.class, s::executeBatch);
            // a table that joined a protected one in between
            s.addBatch("UPDATE kid SET amount = 0");
            // (bringing kid's rows into totals is itself refused outside an unfenced section)
            Fencing.unfenced(() -> other.execute("ALTER TABLE kid INHERIT totals"));
            assertThrows(SQLException.class, s::executeBatch);
        }
        assertUntouched(db);
        assertEquals(10, db.queryLong("SELECT amount FROM kid"));
    }

    @Test
    void anSqlExecuteOfPgjdbcsOwnServerPreparedFencedWriteIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
             Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(30);
                 PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = 1")) {
                for (int i = 0; i < 8; i++) { // past pgjdbc's prepareThreshold: a named server-side statement
                    ps.setLong(1, 10);
                    ps.executeUpdate();
                }
                String name;
                try (ResultSet rs = s.executeQuery("SELECT name FROM pg_prepared_statements"
                        + " WHERE statement LIKE 'UPDATE totals%'")) {
                    assertTrue(rs.next(), "pgjdbc prepared the fenced text on the server");
                    name = rs.getString(1);
                }
                try (FencingScope stale = Fencing.bind(5)) {
                    // the caller would supply the token parameters itself
                    assertInstanceOf(dev.fenced.UnsupportedStatementException.class, assertThrows(SQLException.class,
                            () -> s.execute("EXECUTE \"" + name + "\"(0, 1, 1, 1, 1, 1, 1, 1)")));
                }
            }
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
    }
}
