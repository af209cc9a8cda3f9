package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import dev.fenced.TokenDomainException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the JDBC side in enforce mode: every object reached from a fenced connection, however it was
 * reached, writes only fenced, so a stale or missing token changes nothing and is refused with a fencing error,
 * and a current token writes as raw PostgreSQL would. One nested class per review round.
 */
class JdbcAttackIT {

    /**
     * An outsider's attacks on the JDBC side, in enforce mode with a stale token (5, the rows carry 20): every
     * object reached from a fenced connection, however it was reached, writes only fenced, so the stale write
     * never lands.
     */
    @Nested
    @DisplayName("first review: an outsider's attacks on objects reached from a fenced connection (was JdbcAttackTest)")
    class ObjectsReachedFromAConnection {

        private static final String STALE_UPDATE = "UPDATE totals SET amount = 0 WHERE id = 1";

        private static TestDatabase fresh() {
            TestDatabase db = TestDatabase.create();
            db.execute(
                    "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
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
                assertTrue(
                        owner.getConnection() == fenced, "a result set's statement leads to " + owner.getConnection());
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
                try (Statement q = c.createStatement();
                        ResultSet r = q.executeQuery("SELECT cur()")) {
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
                            assertInstanceOf(
                                    dev.fenced.StaleTokenException.class,
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
                for (String raw : new String[] {
                    "org.postgresql.core.BaseConnection",
                    "org.postgresql.jdbc.PgConnection",
                    "org.postgresql.jdbc.PgStatement",
                    "org.postgresql.core.BaseStatement"
                }) {
                    Class<?> type = Class.forName(raw);
                    assertThrows(SQLException.class, () -> s.unwrap(type), raw);
                    assertThrows(SQLException.class, () -> c.getMetaData().unwrap(type), raw);
                }
                assertInstanceOf(
                        Connection.class,
                        c.unwrap(Class.forName("org.postgresql.PGConnection")),
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
                    Statement s = c.createStatement();
                    FencingScope ignored = Fencing.bind(5)) {
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
            db.execute(
                    "CREATE TABLE kid (id int NOT NULL, amount bigint, last_token bigint)",
                    "INSERT INTO kid VALUES (2, 10, 20)");
            try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                    Statement s = c.createStatement();
                    Statement other = c.createStatement();
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
                    try (ResultSet rs = s.executeQuery(
                            "SELECT name FROM pg_prepared_statements" + " WHERE statement LIKE 'UPDATE totals%'")) {
                        assertTrue(rs.next(), "pgjdbc prepared the fenced text on the server");
                        name = rs.getString(1);
                    }
                    try (FencingScope stale = Fencing.bind(5)) {
                        // the caller would supply the token parameters itself
                        assertInstanceOf(
                                dev.fenced.UnsupportedStatementException.class,
                                assertThrows(
                                        SQLException.class,
                                        () -> s.execute("EXECUTE \"" + name + "\"(0, 1, 1, 1, 1, 1, 1, 1)")));
                    }
                }
            }
            assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
        }
    }

    /**
     * An outside reviewer's attacks on the JDBC surface and token handling (enforce mode). Row 1 of {@code totals}
     * carries token 20: token 5 is stale, 30 is current. Every test asserts the safe outcome: a stale or missing
     * token changes nothing and is refused with a fencing error; a current token writes as raw PostgreSQL would.
     */
    @Nested
    @DisplayName("second review: an outside review of the JDBC surface and token handling (was JdbcAttackReviewTest)")
    class OutsideReview {

        static TestDatabase db;
        static String url;

        @BeforeAll
        static void start() {
            db = TestDatabase.create();
            db.execute(
                    "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                    "CREATE TABLE other (id int PRIMARY KEY, amount bigint)",
                    "CREATE VIEW totals_v AS SELECT * FROM totals");
            url = db.fencedUrl("fenced.tables=totals");
        }

        @AfterAll
        static void stop() {}

        @BeforeEach
        void rows() {
            db.execute(
                    "TRUNCATE totals, other",
                    "INSERT INTO totals VALUES (1, 10, 20), (2, 20, 20)",
                    "INSERT INTO other VALUES (1, 10), (2, 20)");
            db.clearTombstones();
        }

        private static void assertUntouched() {
            assertEquals(2, db.queryLong("SELECT count(*) FROM totals"));
            assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
            assertEquals(20, db.queryLong("SELECT amount FROM totals WHERE id = 2"));
            assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE id = 1"));
            assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE id = 2"));
        }

        private static Connection connect(String... extra) throws SQLException {
            StringBuilder u = new StringBuilder(url);
            for (String e : extra) {
                u.append('&').append(e);
            }
            return DriverManager.getConnection(u.toString());
        }

        // ---------------------------------------------------------------- updatable result sets

        /**
         * pgjdbc picks the table an updatable result set writes from the whitespace-separated token after the first
         * word {@code from} of the query text, comments and literals included. A query over an unprotected table whose
         * comment says {@code from totals} makes pgjdbc send {@code UPDATE totals SET ...} itself, around fenced.
         */
        @Test
        void anUpdatableResultSetWhoseCommentNamesTheProtectedTableRefusesRowWrites() throws Exception {
            try (Connection c = connect();
                    FencingScope ignored = Fencing.bind(5);
                    Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                    ResultSet rs = s.executeQuery("SELECT id, amount /* from totals */ FROM other WHERE id = 1")) {
                assertTrue(rs.next());
                rs.updateLong("amount", 0);
                assertInstanceOf(FencingException.class, assertThrows(SQLException.class, rs::updateRow));
                assertInstanceOf(FencingException.class, assertThrows(SQLException.class, rs::deleteRow));
            }
            assertUntouched();
        }

        @Test
        void anUpdatableResultSetWhoseLiteralNamesTheProtectedTableRefusesRowWrites() throws Exception {
            try (Connection c = connect();
                    PreparedStatement ps = c.prepareStatement(
                            "SELECT id, amount, 'x from totals ' AS note FROM other" + " WHERE id = ?",
                            ResultSet.TYPE_SCROLL_INSENSITIVE,
                            ResultSet.CONCUR_UPDATABLE)) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertInstanceOf(FencingException.class, assertThrows(SQLException.class, rs::deleteRow));
                    rs.moveToInsertRow();
                    rs.updateInt("id", 3);
                    rs.updateLong("amount", 0);
                    assertInstanceOf(FencingException.class, assertThrows(SQLException.class, rs::insertRow));
                }
            }
            assertUntouched();
            assertEquals(0, db.queryLong("SELECT count(*) FROM totals WHERE id = 3"));
        }

        /** The second result of a multi-statement text: pgjdbc parses that statement alone. */
        @Test
        void anUpdatableSecondResultWhoseCommentNamesTheProtectedTableRefusesRowWrites() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE)) {
                s.execute("SELECT id, amount FROM other WHERE id = 2; SELECT id, amount -- from totals\n FROM other"
                        + " WHERE id = 1");
                assertTrue(s.getMoreResults());
                try (ResultSet rs = s.getResultSet()) {
                    assertTrue(rs.next());
                    rs.updateLong("amount", 0);
                    assertInstanceOf(FencingException.class, assertThrows(SQLException.class, rs::updateRow));
                }
            }
            assertUntouched();
        }

        @Test
        void updatableResultSetsOverTheTableForUpdateOrAViewRefuseRowWrites() throws Exception {
            for (String q : new String[] {
                "SELECT id, amount FROM totals WHERE id = 1 FOR UPDATE",
                "SELECT id, amount FROM ONLY totals WHERE id = 1",
                "SELECT id, amount FROM totals_v WHERE id = 1",
                "SELECT id, amount FROM public.totals WHERE id = 1",
                "SELECT id, amount FROM \"totals\" WHERE id = 1"
            }) {
                try (Connection c = connect();
                        FencingScope ignored = Fencing.bind(30)) {
                    c.setAutoCommit(false);
                    try (Statement s =
                                    c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                            ResultSet rs = s.executeQuery(q)) {
                        assertTrue(rs.next(), q);
                        // refused by fenced; pgjdbc itself refuses the view (it has no primary key)
                        SQLException e = assertThrows(
                                SQLException.class,
                                () -> {
                                    rs.updateLong("amount", 0);
                                    rs.updateRow();
                                },
                                q);
                        assertTrue(e instanceof FencingException || q.contains("totals_v"), q + ": " + e);
                    }
                    c.commit();
                }
            }
            assertUntouched();
        }

        @Test
        void updatableResultSetsOverAnotherTableStillWork() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE);
                    ResultSet rs =
                            s.executeQuery("SELECT id, amount /* totals are elsewhere */ FROM other WHERE id = 1")) {
                assertTrue(rs.next());
                rs.updateLong("amount", 11);
                rs.updateRow();
            }
            assertEquals(11, db.queryLong("SELECT amount FROM other WHERE id = 1"));
        }

        // ---------------------------------------------------------------- unfenced sections and batches

        /** A refused statement added to a batch inside an unfenced section must not run once the section is over. */
        @Test
        void aStatementBatchEntryAddedInsideAnUnfencedSectionIsRefusedOutsideIt() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                Fencing.unfenced(() -> {
                    s.addBatch("TRUNCATE totals");
                    return null;
                });
                try (FencingScope ignored = Fencing.bind(30)) {
                    assertThrows(UnsupportedStatementException.class, s::executeBatch);
                }
            }
            assertUntouched();
        }

        /** The same for a protected UPDATE added inside (NULL token), executed outside with no token or a stale one. */
        @Test
        void anUnfencedUpdateBatchedInsideTheSectionIsRefusedOutsideIt() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                Fencing.unfenced(() -> {
                    s.addBatch("UPDATE totals SET amount = 0 WHERE id = 1");
                    return null;
                });
                assertThrows(FencingException.class, s::executeBatch);
                PreparedStatement ps = Fencing.unfenced(() -> {
                    PreparedStatement p = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?");
                    p.setLong(1, 0);
                    p.setInt(2, 2);
                    p.addBatch();
                    return p;
                });
                try (ps;
                        FencingScope ignored = Fencing.bind(5)) {
                    assertThrows(FencingException.class, ps::executeBatch);
                }
            }
            assertUntouched();
        }

        /** Prepared inside the section (NULL-token text), run outside: fenced as usual with a token, else refused. */
        @Test
        void aStatementPreparedInsideAnUnfencedSectionIsFencedOutsideIt() throws Exception {
            try (Connection c = connect()) {
                PreparedStatement ps =
                        Fencing.unfenced(() -> c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?"));
                try (ps) {
                    ps.setLong(1, 0);
                    ps.setInt(2, 1);
                    assertThrows(UnfencedWriteException.class, ps::executeUpdate);
                    try (FencingScope ignored = Fencing.bind(5)) {
                        assertThrows(StaleTokenException.class, ps::executeUpdate);
                    }
                    FencingScope closed = Fencing.bind(40);
                    closed.close();
                    try (FencingScope ignored = Fencing.bind(40)) {
                        // a scope's token bound again after its scope closed is a plain bind: not a lease
                        assertEquals(40, Fencing.currentToken().getAsLong());
                    }
                    assertUntouched();
                    try (FencingScope ignored = Fencing.bind(30)) {
                        assertEquals(1, ps.executeUpdate());
                    }
                }
            }
            assertEquals(0, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
            assertEquals(30, db.queryLong("SELECT last_token FROM totals WHERE id = 1"));
        }

        /** A batch whose second entry carries a stale token fails whole: the first entry's row is not changed either. */
        @Test
        void aPreparedBatchWithOneStaleEntryChangesNothing() throws Exception {
            try (Connection c = connect();
                    PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                try (FencingScope ignored = Fencing.bind(30)) {
                    ps.setLong(1, 0);
                    ps.setInt(2, 1);
                    ps.addBatch();
                }
                // the first scope is closed now: its entry is revoked
                try (FencingScope ignored = Fencing.bind(31)) {
                    ps.setLong(1, 0);
                    ps.setInt(2, 2);
                    ps.addBatch();
                    assertThrows(LeaseLostException.class, ps::executeBatch);
                }
                try (FencingScope outer = Fencing.bind(30)) {
                    ps.setLong(1, 0);
                    ps.setInt(2, 1);
                    ps.addBatch();
                    try (FencingScope stale = Fencing.bind(5)) {
                        ps.setInt(2, 2);
                        ps.addBatch();
                    }
                    assertThrows(LeaseLostException.class, ps::executeBatch);
                    ps.clearBatch();
                    ps.clearParameters();
                    ps.setLong(1, 0);
                    ps.setInt(2, 1);
                    ps.addBatch();
                    try (FencingScope stale = Fencing.bind(5)) {
                        ps.setInt(2, 2);
                        ps.addBatch();
                        assertThrows(StaleTokenException.class, ps::executeBatch);
                    }
                }
            }
            assertUntouched();
        }

        @Test
        void aStatementBatchWithOneStaleEntryChangesNothing() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    FencingScope ignored = Fencing.bind(30)) {
                s.addBatch("UPDATE totals SET amount = 0 WHERE id = 1");
                try (FencingScope stale = Fencing.bind(5)) {
                    s.addBatch("UPDATE totals SET amount = 0 WHERE id = 2");
                    assertThrows(StaleTokenException.class, s::executeBatch);
                }
                s.addBatch("UPDATE totals SET amount = 0 WHERE id = 1");
                s.clearBatch();
                assertArrayEquals(new int[0], s.executeBatch());
            }
            assertUntouched();
        }

        /** pgjdbc's reWriteBatchedInserts merges entries into one multi-row INSERT: each entry keeps its own token. */
        @Test
        void rewrittenBatchedUpsertsKeepEachEntrysToken() throws Exception {
            String upsert = "INSERT INTO totals (id, amount) VALUES (?, ?)"
                    + " ON CONFLICT (id) DO UPDATE SET amount = excluded.amount";
            try (Connection c = connect("reWriteBatchedInserts=true");
                    PreparedStatement ps = c.prepareStatement(upsert);
                    FencingScope ignored = Fencing.bind(30)) {
                ps.setInt(1, 3);
                ps.setLong(2, 30);
                ps.addBatch();
                try (FencingScope stale = Fencing.bind(5)) {
                    ps.setInt(1, 1);
                    ps.setLong(2, 0);
                    ps.addBatch();
                    assertThrows(StaleTokenException.class, ps::executeBatch);
                }
            }
            assertUntouched();
            assertEquals(0, db.queryLong("SELECT count(*) FROM totals WHERE id = 3"));
            try (Connection c = connect("reWriteBatchedInserts=true");
                    PreparedStatement ps = c.prepareStatement(upsert);
                    FencingScope ignored = Fencing.bind(30)) {
                for (int id = 1; id <= 3; id++) {
                    ps.setInt(1, id);
                    ps.setLong(2, 100 + id);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            assertEquals(101, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
            assertEquals(30, db.queryLong("SELECT min(last_token) FROM totals"));
            assertEquals(3, db.queryLong("SELECT count(*) FROM totals"));
        }

        // ---------------------------------------------------------------- connection properties

        @Test
        void pgjdbcPropertiesThatChangeHowTextIsSentKeepTheFence() throws Exception {
            String[][] variants = {
                {"preferQueryMode=simple"},
                {"stringtype=unspecified"},
                {"prepareThreshold=-1"},
                {"prepareThreshold=0"},
                {"binaryTransfer=false"},
                {"preferQueryMode=extendedCacheEverything"},
                {"escapeSyntaxCallMode=callIfNoReturn"},
                {"preferQueryMode=simple", "stringtype=unspecified"}
            };
            for (String[] v : variants) {
                try (Connection c = connect(v);
                        Statement s = c.createStatement();
                        PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                    try (FencingScope stale = Fencing.bind(5)) {
                        assertThrows(
                                StaleTokenException.class,
                                () -> s.executeUpdate("UPDATE totals SET amount = 0 WHERE id = 1"),
                                String.join("&", v));
                        for (int i = 0; i < 3; i++) {
                            if (String.join("&", v).contains("stringtype")) {
                                ps.setString(1, "0");
                            } else {
                                ps.setLong(1, 0);
                            }
                            ps.setObject(2, 1);
                            assertThrows(StaleTokenException.class, ps::executeUpdate, String.join("&", v));
                        }
                    }
                    assertThrows(UnfencedWriteException.class, ps::executeUpdate, String.join("&", v));
                    assertThrows(
                            UnfencedWriteException.class,
                            () -> s.executeUpdate("DELETE FROM totals WHERE id = 1"),
                            String.join("&", v));
                }
                assertUntouched();
            }
        }

        /**
         * In simple query mode pgjdbc could join a Statement batch's texts into one query string; an entry that
         * opens a dollar quote would then swallow the next entry's quote and expose a write no entry showed.
         */
        @Test
        void simpleModeBatchEntriesAreNotJoinedAcrossQuotes() throws Exception {
            try (Connection c = connect("preferQueryMode=simple");
                    Statement s = c.createStatement();
                    FencingScope stale = Fencing.bind(5)) {
                try {
                    s.addBatch("SELECT $a$");
                    s.addBatch("$a$; UPDATE totals SET amount = 0 WHERE id = 1; SELECT $a$");
                    s.addBatch("$a$");
                    s.executeBatch();
                } catch (SQLException expected) {
                    // refused, or a syntax error from the server: either way nothing may land
                }
            }
            assertUntouched();
        }

        // ---------------------------------------------------------------- tokens at the edge

        @Test
        void tokensAtTheEdge() throws Exception {
            assertThrows(IllegalArgumentException.class, () -> Fencing.bind(0));
            assertThrows(IllegalArgumentException.class, () -> Fencing.bind(-1));
            assertThrows(IllegalArgumentException.class, () -> Fencing.bind(Long.MIN_VALUE));
            assertThrows(IllegalArgumentException.class, () -> Fencing.bind("Etcd", 5));
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                try (FencingScope etcd = Fencing.bind("etcd", Long.MAX_VALUE)) {
                    assertThrows(TokenDomainException.class, () -> s.executeUpdate("UPDATE totals SET amount = 0"));
                    ps.setLong(1, 0);
                    ps.setInt(2, 1);
                    assertThrows(TokenDomainException.class, ps::executeUpdate);
                    assertThrows(TokenDomainException.class, () -> s.addBatch("DELETE FROM totals"));
                }
                assertUntouched();
                try (FencingScope max = Fencing.bind(Long.MAX_VALUE)) {
                    assertEquals(1, s.executeUpdate("UPDATE totals SET amount = 1 WHERE id = 1"));
                    ps.setLong(1, 2);
                    ps.setInt(2, 2);
                    assertEquals(1, ps.executeUpdate());
                }
                try (FencingScope almost = Fencing.bind(Long.MAX_VALUE - 1)) {
                    assertThrows(
                            StaleTokenException.class,
                            () -> s.executeUpdate("UPDATE totals SET amount = 9 WHERE id = 1"));
                    assertThrows(StaleTokenException.class, ps::executeUpdate);
                    assertThrows(StaleTokenException.class, () -> s.executeUpdate("DELETE FROM totals WHERE id = 1"));
                }
            }
            assertEquals(Long.MAX_VALUE, db.queryLong("SELECT min(last_token) FROM totals"));
            assertEquals(3, db.queryLong("SELECT sum(amount) FROM totals"));
        }

        // ---------------------------------------------------------------- parameters

        @Test
        void parameterIndexesAndOddTypesAtTokenPositionsChangeNothing() throws Exception {
            try (Connection c = connect();
                    FencingScope stale = Fencing.bind(5);
                    PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                ParameterMetaData meta = ps.getParameterMetaData();
                assertEquals(2, meta.getParameterCount());
                assertThrows(SQLException.class, () -> meta.getParameterType(3));
                assertThrows(SQLException.class, () -> ps.setLong(3, 999));
                assertThrows(SQLException.class, () -> ps.setLong(0, 999));
                assertThrows(SQLException.class, () -> ps.setObject(4, "999"));
                assertThrows(SQLException.class, () -> ps.setNull(-1, java.sql.Types.BIGINT));
                ps.setObject(1, "0", java.sql.Types.BIGINT);
                ps.setObject(2, 1L);
                assertThrows(StaleTokenException.class, ps::executeUpdate);
                org.postgresql.util.PGobject o = new org.postgresql.util.PGobject();
                o.setType("int8");
                o.setValue("0");
                ps.setObject(1, o);
                assertThrows(StaleTokenException.class, ps::executeUpdate);
                ps.setObject(1, c.createArrayOf("int8", new Object[] {0L}));
                assertThrows(SQLException.class, ps::executeUpdate);
                ps.clearParameters();
                assertThrows(SQLException.class, ps::executeUpdate); // parameters unset
            }
            assertUntouched();
        }

        // ---------------------------------------------------------------- surface

        @Test
        void noDoorToTheRawConnectionButTheDocumentedOne() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    PreparedStatement ps = c.prepareStatement("SELECT 1");
                    java.sql.CallableStatement cs = c.prepareCall("{? = call upper(?)}")) {
                assertSame(c, s.getConnection());
                assertSame(c, ps.getConnection());
                assertSame(c, cs.getConnection());
                assertSame(c, c.getMetaData().getConnection());
                for (String raw :
                        new String[] {"org.postgresql.jdbc.PgConnection", "org.postgresql.core.BaseConnection"}) {
                    Class<?> type = Class.forName(raw);
                    assertThrows(SQLException.class, () -> c.unwrap(type), raw);
                    assertThrows(SQLException.class, () -> c.getMetaData().unwrap(type), raw);
                    assertThrows(SQLException.class, () -> s.unwrap(type), raw);
                }
                for (String raw : new String[] {
                    "org.postgresql.jdbc.PgStatement",
                    "org.postgresql.core.BaseStatement",
                    "org.postgresql.jdbc.PgPreparedStatement",
                    "org.postgresql.jdbc.PgCallableStatement"
                }) {
                    Class<?> type = Class.forName(raw);
                    assertThrows(SQLException.class, () -> ps.unwrap(type), raw);
                    assertThrows(SQLException.class, () -> cs.unwrap(type), raw);
                }
                assertThrows(SQLException.class, () -> s.unwrap(org.postgresql.PGConnection.class));
                assertThrows(SQLException.class, () -> c.getMetaData().unwrap(org.postgresql.PGConnection.class));
                assertFalse(ps.getParameterMetaData() instanceof Statement);
                try (ResultSet rs = c.getMetaData().getTables(null, null, "totals", null)) {
                    assertTrue(rs.getStatement() == null || rs.getStatement().getConnection() == c);
                }
                assertTrue(c.isWrapperFor(org.postgresql.PGConnection.class));
            }
        }

        @Test
        void callsThatWriteTheProtectedTableAreRefused() throws Exception {
            try (Connection c = connect();
                    FencingScope stale = Fencing.bind(5)) {
                assertThrows(
                        UnsupportedStatementException.class,
                        () -> c.prepareCall("UPDATE totals SET amount = 0 WHERE id = 1"));
                assertThrows(
                        UnsupportedStatementException.class,
                        () -> c.prepareCall("WITH w AS (DELETE FROM totals RETURNING 1) SELECT count(*) FROM w"));
                assertThrows(
                        SQLException.class,
                        () -> c.prepareCall("{call totals_v()}").execute());
            }
            assertUntouched();
        }

        @Test
        void multipleResultsAndGeneratedKeys() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                try (FencingScope stale = Fencing.bind(5)) {
                    assertThrows(
                            StaleTokenException.class,
                            () -> s.execute("SELECT 1; UPDATE totals SET amount = 0 WHERE id = 1; SELECT 2"));
                    assertThrows(
                            StaleTokenException.class,
                            () -> s.executeUpdate(
                                    "UPDATE totals SET amount = 0 WHERE id = 1", Statement.RETURN_GENERATED_KEYS));
                    try (PreparedStatement ps =
                            c.prepareStatement("DELETE FROM totals WHERE id = ?", new String[] {"id"})) {
                        ps.setInt(1, 1);
                        assertThrows(StaleTokenException.class, ps::executeUpdate);
                    }
                }
                assertUntouched();
                try (FencingScope current = Fencing.bind(30);
                        PreparedStatement ps = c.prepareStatement(
                                "UPDATE totals SET amount = ? WHERE id = ?", Statement.RETURN_GENERATED_KEYS)) {
                    ps.setLong(1, 7);
                    ps.setInt(2, 1);
                    assertEquals(1, ps.executeUpdate());
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        assertTrue(keys.next());
                        assertEquals(7, keys.getLong("amount"));
                        assertEquals(30, keys.getLong("last_token"));
                        assertSame(ps, keys.getStatement());
                    }
                }
            }
        }

        // ---------------------------------------------------------------- transactions

        @Test
        void savepointsAndAutocommitToggles() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                try (FencingScope current = Fencing.bind(30)) {
                    java.sql.Savepoint sp = c.setSavepoint();
                    assertEquals(1, s.executeUpdate("UPDATE totals SET amount = 1 WHERE id = 1"));
                    c.rollback(sp);
                }
                try (FencingScope stale = Fencing.bind(5)) {
                    // the token 30 was rolled back: 5 is still stale against 20
                    assertThrows(
                            StaleTokenException.class,
                            () -> s.executeUpdate("UPDATE totals SET amount = 0 WHERE id = 1"));
                }
                c.rollback();
                c.setReadOnly(false);
                c.setAutoCommit(true);
                try (FencingScope stale = Fencing.bind(5)) {
                    s.execute("BEGIN");
                    assertThrows(
                            StaleTokenException.class,
                            () -> s.executeUpdate("UPDATE totals SET amount = 0 WHERE id = 1"));
                    s.execute("ROLLBACK");
                }
            }
            assertUntouched();
        }

        @Test
        void searchPathAndSchemaDoNotMoveAWriteAwayFromTheFence() throws Exception {
            db.execute(
                    "CREATE SCHEMA IF NOT EXISTS side",
                    "DROP TABLE IF EXISTS side.totals",
                    "CREATE TABLE side.totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                    "INSERT INTO side.totals VALUES (1, 10, 20)");
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                c.setSchema("side");
                try (FencingScope stale = Fencing.bind(5)) {
                    ps.setLong(1, 0);
                    ps.setInt(2, 1);
                    assertThrows(StaleTokenException.class, ps::executeUpdate);
                    s.execute("SET search_path = side, public");
                    assertThrows(StaleTokenException.class, ps::executeUpdate);
                    assertThrows(
                            StaleTokenException.class,
                            () -> s.executeUpdate("UPDATE totals SET amount = 0 WHERE id = 1"));
                }
            } finally {
                db.execute("DROP TABLE side.totals");
            }
            assertUntouched();
        }

        // ---------------------------------------------------------------- scopes and threads

        @Test
        void scopesClosedOutOfOrder() throws Exception {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                FencingScope outer = Fencing.bind(30);
                FencingScope inner = Fencing.bind(5);
                assertThrows(IllegalStateException.class, outer::close);
                // the inner (stale) token is still the one bound
                assertThrows(
                        StaleTokenException.class, () -> s.executeUpdate("UPDATE totals SET amount = 0 WHERE id = 1"));
                inner.close();
                assertFalse(Fencing.currentToken().isPresent());
                assertThrows(
                        UnfencedWriteException.class,
                        () -> s.executeUpdate("UPDATE totals SET amount = 0 WHERE id = 1"));
            }
            assertUntouched();
        }

        /** A batch built on one thread under its scope and run on another after the scope closed is refused. */
        @Test
        void aBatchHandedToAnotherThreadAfterItsScopeClosedIsRefused() throws Exception {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = ?")) {
                try (FencingScope scope = Fencing.bind(30)) {
                    s.addBatch("UPDATE totals SET amount = 0 WHERE id = 1");
                    ps.setLong(1, 0);
                    ps.setInt(2, 2);
                    ps.addBatch();
                }
                Future<?> a = pool.submit(() -> assertThrows(LeaseLostException.class, s::executeBatch));
                Future<?> b = pool.submit(() -> assertThrows(LeaseLostException.class, ps::executeBatch));
                a.get();
                b.get();
                // a thread with a stale token of its own runs a statement prepared elsewhere: its own token counts
                Future<?> d = pool.submit(() -> {
                    try (FencingScope stale = Fencing.bind(5)) {
                        ps.setLong(1, 0);
                        ps.setInt(2, 1);
                        return assertThrows(StaleTokenException.class, ps::executeUpdate);
                    }
                });
                d.get();
            } finally {
                pool.shutdownNow();
            }
            assertUntouched();
        }
    }
}
