package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An outside reviewer's attacks on fenced's SQL rewriting (the one promise: no stale or unfenced write lands on a
 * protected table; what cannot be fenced safely is refused). Each attack runs through a fenced connection with a
 * STALE token (the rows hold a newer one) and must be refused or change nothing; with a current token a rewritten
 * statement must do what raw PostgreSQL does. Attacks that were tried and held are kept, to document them.
 */
@DisplayName("RewriteAttackIT: an outside review of the SQL rewriting (was RewriteAttackReviewTest)")
@Tag("server-sensitive")
class RewriteAttackIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase fresh() {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE u (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, 'two', 2, " + ROW + ")",
                "INSERT INTO u VALUES (1, 'uone', 1, " + ROW + "), (2, 'utwo', 2, " + ROW + ")");
        return db;
    }

    private static Connection fenced(TestDatabase db, String tables) throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=" + tables));
    }

    private static String rows(TestDatabase db, String table) {
        StringBuilder b = new StringBuilder();
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT id, v, last_token FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                b.append(rs.getInt(1))
                        .append('|')
                        .append(rs.getString(2))
                        .append('|')
                        .append(rs.getString(3))
                        .append(';');
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return b.toString();
    }

    // ---------------------------------------------------------------------------------------------------------
    // HOLE 1: DDL on the fence column written with a Unicode-escaped identifier. classifyAlter compares
    // TableName.fold(token) with the fence column, and fold leaves U&"last\005ftoken" as it is, so DROP/RENAME of
    // the fence column passes whenever the text does not start with ALTER (SettingChanges only refuses U& beside
    // ALTER/SET/CREATE/DO as the text's first word). The column then comes back empty with an ADD COLUMN (plain DDL),
    // every token is NULL (= 0), and a stale UPDATE lands.
    // ---------------------------------------------------------------------------------------------------------

    @Test
    void theFenceColumnCannotBeDroppedByAUnicodeEscapedNameAndAddedBackEmpty() throws SQLException {
        for (String ddl : new String[] {
            "SELECT 1; ALTER TABLE t DROP COLUMN U&\"last\\005ftoken\"",
            "SELECT 1; ALTER TABLE t RENAME COLUMN U&\"last\\005ftoken\" TO old_token",
            "SELECT 1; ALTER TABLE t RENAME U&\"last\\005ftoken\" TO old_token",
            "SELECT 1; ALTER TABLE t DROP U&\"last!005ftoken\" UESCAPE '!'",
        }) {
            for (boolean prepared : new boolean[] {false, true}) {
                TestDatabase db = fresh();
                try (Connection c = fenced(db, "t");
                        FencingScope ignored = Fencing.bind(STALE)) {
                    Outcome.of(c, ddl, prepared);
                    Outcome.of(c, "ALTER TABLE t ADD COLUMN IF NOT EXISTS last_token bigint", false);
                    Outcome.of(c, "UPDATE t SET v = 'stale' WHERE id = 1", false);
                }
                assertEquals(
                        "1|one|" + ROW + ";2|two|" + ROW + ";", rows(db, "t"), ddl + (prepared ? " (prepared)" : ""));
            }
        }
    }

    @Test
    void fenceColumnDdlWithAUnicodeEscapedNameIsRefused() throws SQLException {
        TestDatabase db = fresh();
        try (Connection c = fenced(db, "t");
                FencingScope ignored = Fencing.bind(CURRENT);
                Statement s = c.createStatement()) {
            for (String ddl : new String[] {
                "SELECT 1; ALTER TABLE t DROP COLUMN U&\"last\\005ftoken\"",
                "SELECT 1; ALTER TABLE t ALTER COLUMN U&\"last\\005ftoken\" SET DEFAULT 0",
                "SELECT 1; DROP TRIGGER U&\"fenced\\005ftombstone\\005fcheck\" ON t",
                "DROP TRIGGER U&\"fenced\\005ftombstone\\005fcheck\" ON t",
                "SELECT 1; ALTER TABLE t DISABLE TRIGGER U&\"fenced\\005ftombstone\\005fcheck\"",
            }) {
                UnsupportedStatementException e =
                        assertThrows(UnsupportedStatementException.class, () -> s.execute(ddl), ddl);
                assertTrue(
                        e.getMessage().contains("Unicode-escaped")
                                || e.getMessage().contains("tombstone"),
                        e::getMessage);
            }
        }
        assertEquals(
                1,
                db.queryLong("SELECT count(*) FROM pg_attribute WHERE attrelid = 't'::regclass"
                        + " AND attname = 'last_token' AND NOT attisdropped AND atthasdef = false"));
    }

    /** The same U& blind spot in ALTER SCHEMA ... RENAME of a registered table's schema (rows moved out from under). */
    @Test
    void aSchemaRenamedByAUnicodeEscapedNameDoesNotTakeProtectedRowsAlong() throws SQLException {
        for (String ddl : new String[] {
            "ALTER SCHEMA U&\"s\\0061les\" RENAME TO moved", "SELECT 1; ALTER SCHEMA U&\"s\\0061les\" RENAME TO moved"
        }) {
            TestDatabase db = TestDatabase.create();
            db.execute(
                    "CREATE SCHEMA sales",
                    "CREATE TABLE sales.totals (id int PRIMARY KEY, v text, last_token bigint)",
                    "INSERT INTO sales.totals VALUES (1, 'one', " + ROW + ")");
            try (Connection c = fenced(db, "sales.totals");
                    FencingScope ignored = Fencing.bind(STALE)) {
                Outcome.of(c, ddl, false);
                Outcome.of(c, "UPDATE moved.totals SET v = 'stale' WHERE id = 1", false);
            }
            assertEquals(1, db.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = 'sales'"), ddl);
            assertEquals("1|one|" + ROW + ";", rows(db, "sales.totals"), ddl);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // HOLE 3: CREATE OR REPLACE TRIGGER fenced_tombstone_check ... WHEN (false) (or on other events) passed as plain
    // DDL, and the catalog read's check for the trigger (name, function, arguments, enabled) still found it: the
    // tombstone check never fired again, and a stale holder inserted back a row a newer holder had deleted.
    // ---------------------------------------------------------------------------------------------------------

    @Test
    void fencedsTombstoneTriggerCannotBeReplacedByOneThatNeverFires() throws Exception {
        for (String how : new String[] {
            "AFTER INSERT OR UPDATE OF id ON t FOR EACH ROW WHEN (false)",
            "AFTER UPDATE OF v ON t FOR EACH ROW",
            "AFTER INSERT OR UPDATE OF id ON public.t FOR EACH STATEMENT",
            "AFTER INSERT OR UPDATE OF v ON t FOR EACH ROW"
        }) {
            TestDatabase db = fresh();
            try (Connection c = fenced(db, "t");
                    FencingScope ignored = Fencing.bind(CURRENT)) {
                assertEquals(null, Outcome.of(c, "DELETE FROM t WHERE id = 2", false));
            }
            String ddl = "CREATE OR REPLACE TRIGGER fenced_tombstone_check " + how
                    + " EXECUTE FUNCTION fenced_tombstone_check('t', 'last_token', 'id')";
            try (Connection c = fenced(db, "t");
                    FencingScope ignored = Fencing.bind(STALE)) {
                Outcome.of(c, ddl, false);
                Outcome.of(c, "INSERT INTO t (id, v) VALUES (2, 'ghost')", false);
            }
            assertEquals("1|one|" + ROW + ";", rows(db, "t"), ddl);
            // the same replacement made behind fenced's back is undone at the next catalog read: another setting
            // is another runtime, which reads the catalog when it connects
            db.execute(ddl.replace("fenced_tombstone_check(", "public.fenced_tombstone_check("));
            try (Connection c =
                            DriverManager.getConnection(db.fencedUrl("fenced.tables=t", "fenced.catalogRefresh=1ms"));
                    FencingScope ignored = Fencing.bind(STALE)) {
                Outcome.of(c, "INSERT INTO t (id, v) VALUES (2, 'ghost')", false);
            }
            assertEquals("1|one|" + ROW + ";", rows(db, "t"), "behind the back: " + ddl);
            // and the check is fenced's own again: every insert and every update of the key
            assertEquals(
                    1,
                    db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgrelid = 't'::regclass AND tgname ="
                            + " 'fenced_tombstone_check' AND pg_get_triggerdef(oid) LIKE '%AFTER INSERT OR DELETE OR UPDATE OF id ON%'"
                            + " AND tgqual IS NULL AND tgtype = 29"),
                    "behind the back: " + ddl);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // HOLE 2: DDL that moves rows INTO a protected table. DETACH PARTITION / NO INHERIT (rows out) are refused,
    // but ATTACH PARTITION and INHERIT (rows in) pass: the attached table's rows, with whatever fence tokens it
    // holds and keys a newer holder deleted, become the protected table's rows without any token check or
    // tombstone check (no INSERT trigger fires for them).
    // ---------------------------------------------------------------------------------------------------------

    @Test
    void attachingAPartitionBringsNoUncheckedRowsIntoAProtectedTable() throws SQLException {
        for (boolean prepared : new boolean[] {false, true}) {
            TestDatabase db = TestDatabase.create();
            db.execute(
                    "CREATE TABLE pt (id int PRIMARY KEY, v text, last_token bigint) PARTITION BY RANGE (id)",
                    "CREATE TABLE pt0 PARTITION OF pt FOR VALUES FROM (0) TO (100)",
                    "CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (100) TO (200)",
                    "INSERT INTO pt VALUES (1, 'one', " + ROW + "), (150, 'gone', " + ROW + ")");
            try (Connection c = fenced(db, "pt");
                    FencingScope ignored = Fencing.bind(CURRENT)) {
                // the newer holder deletes key 150 (tombstoned) and drops the now empty partition
                assertEquals(null, Outcome.of(c, "DELETE FROM pt WHERE id = 150", false));
            }
            db.execute(
                    "DROP TABLE pt1",
                    "CREATE TABLE px (id int PRIMARY KEY, v text, last_token bigint)",
                    "INSERT INTO px VALUES (150, 'ghost', 1)");
            String before = rows(db, "pt");
            try (Connection c = fenced(db, "pt");
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, "ALTER TABLE pt ATTACH PARTITION px FOR VALUES FROM (100) TO (200)", prepared);
                assertTrue(e != null && e.startsWith("UnsupportedStatementException"), String.valueOf(e));
            }
            assertEquals(before, rows(db, "pt"), "a deleted key came back through ATTACH PARTITION");
        }
    }

    @Test
    void inheritingFromAProtectedTableBringsNoUncheckedRowsIntoIt() throws SQLException {
        for (String ddl : new String[] {
            "ALTER TABLE x INHERIT t",
            "ALTER TABLE IF EXISTS ONLY x INHERIT public.t",
            "ALTER TABLE x ADD COLUMN z int, INHERIT t"
        }) {
            TestDatabase db = fresh();
            db.execute(
                    "CREATE TABLE x (id int NOT NULL, v text, n bigint, last_token bigint)",
                    "INSERT INTO x VALUES (9, 'unchecked', 9, 1)");
            String before = rows(db, "t");
            try (Connection c = fenced(db, "t");
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, ddl, false);
                assertTrue(e != null && e.startsWith("UnsupportedStatementException"), ddl + ": " + e);
            }
            assertEquals(before, rows(db, "t"), ddl);
        }
    }

    /**
     * The refused INHERIT run where it is allowed (inside Fencing.unfenced) must still be followed by a catalog read:
     * a refused plan carried no schema change, so the known, unprotected {@code kid} stayed unprotected and was
     * written with no token (and a stale one) until the next periodic refresh.
     */
    @Test
    void ddlRefusedOutsideButRunInsideAnUnfencedSectionIsStillLearned() throws Exception {
        TestDatabase db = fresh();
        db.execute(
                "CREATE TABLE kid (id int NOT NULL, v text, n bigint, last_token bigint)",
                "INSERT INTO kid VALUES (9, 'kid', 9, " + ROW + ")");
        try (Connection c = fenced(db, "t");
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE kid SET v = 'known' WHERE id = 9"); // kid is known, and unprotected
            Fencing.unfenced(() -> s.execute("ALTER TABLE kid INHERIT t"));
            assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE kid SET v = 'no token' WHERE id = 9"));
            try (FencingScope ignored = Fencing.bind(STALE)) {
                assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE kid SET v = 'stale' WHERE id = 9"));
            }
        }
        assertEquals("9|known|" + ROW + ";", rows(db, "kid"));
    }

    /**
     * Gap (not a landed write): SettingChanges refused a U&"..." name beside SET only when the TEXT began with SET, so
     * {@code SELECT 1; SET U&"<standard_conforming_strings escaped>" TO off} turned the setting off, against the
     * docs/guarantees.md ("statements that would turn it off are refused"). Later protected writes were still refused (the
     * connection's setting is checked), so nothing stale landed.
     */
    @Test
    void aUnicodeEscapedSettingNameAfterAnotherStatementIsRefused() throws SQLException {
        TestDatabase db = fresh();
        StringBuilder name = new StringBuilder();
        for (char ch : "standard_conforming_strings".toCharArray()) {
            name.append(String.format("\\%04x", (int) ch));
        }
        try (Connection c = fenced(db, "t");
                Statement s = c.createStatement()) {
            for (String sql : new String[] {
                "SELECT 1; SET U&\"" + name + "\" TO off",
                "SELECT 1; SET SESSION U&\"" + name + "\" = false",
                "SELECT 1;\nSET U&\"" + name + "\" TO off"
            }) {
                assertThrows(UnsupportedStatementException.class, () -> s.execute(sql), sql);
                try (var rs = s.executeQuery("SHOW standard_conforming_strings")) {
                    rs.next();
                    assertEquals("on", rs.getString(1), sql);
                }
            }
        }
    }

    /** Control: DDL that neither touches the fence column nor moves rows stays plain DDL. */
    @Test
    void plainDdlOnAProtectedTableStillRuns() throws SQLException {
        TestDatabase db = fresh();
        db.execute("CREATE TABLE pt (id int PRIMARY KEY, v text, last_token bigint) PARTITION BY RANGE (id)");
        try (Connection c = fenced(db, "t,pt");
                FencingScope ignored = Fencing.bind(CURRENT);
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE t ADD COLUMN extra int");
            s.execute("ALTER TABLE t ALTER COLUMN extra SET DEFAULT 1");
            s.execute("ALTER TABLE t DROP COLUMN extra");
            s.execute("CREATE TABLE pt0 PARTITION OF pt FOR VALUES FROM (0) TO (100)");
            s.execute("INSERT INTO pt (id, v) VALUES (1, 'x')");
        }
        assertEquals(CURRENT, db.queryLong("SELECT last_token FROM pt WHERE id = 1"));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Attacks tried that held (documentation): each is refused or fenced under a stale token, and with a current
    // token either refused or equal to raw PostgreSQL (the fence column aside).
    // ---------------------------------------------------------------------------------------------------------

    static final String[] HELD = {
        "UPDATE t SET v = DEFAULT WHERE id = 1",
        "UPDATE t SET last_token = DEFAULT WHERE id = 1",
        "UPDATE t SET (v, last_token) = ('x', 999) WHERE id = 1",
        "UPDATE t SET (v, \"last_token\") = (SELECT 'x', 999) WHERE id = 1",
        "UPDATE t SET t.last_token = 999 WHERE id = 1",
        "UPDATE t SET last_token[1] = 5 WHERE id = 1",
        "UPDATE t SET U&\"last\\005ftoken\" = 999 WHERE id = 1",
        "INSERT INTO t (id, U&\"last\\005ftoken\") VALUES (3, 999)",
        "UPDATE t AS last_token SET v = 'x' WHERE last_token.id = 1",
        "UPDATE t SET v = 'x' FROM u WHERE u.id = t.id AND u.last_token > 0",
        "UPDATE t AS a SET v = 'x' FROM u AS t WHERE a.id = t.id",
        "UPDATE t t2 SET v = 'x' FROM t WHERE t.id = t2.id",
        "UPDATE t SET v = t2.v FROM (SELECT 1 AS id, 'q' AS v, 0 AS last_token) t2 WHERE t2.id = t.id",
        "DELETE FROM t AS a USING u AS t WHERE a.id = t.id",
        "DELETE FROM t USING (SELECT 1 AS id, 0 AS last_token) last_token WHERE last_token.id = t.id",
        "MERGE INTO t AS s USING u AS t ON s.id = t.id WHEN MATCHED THEN UPDATE SET v = t.v",
        "MERGE INTO t AS s USING (SELECT 1 AS id, 'q' AS v, 0 AS last_token) AS t ON s.id = t.id"
                + " WHEN MATCHED THEN UPDATE SET v = t.v",
        "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED AND u.id = 1 THEN UPDATE SET v = 'a'"
                + " WHEN MATCHED THEN UPDATE SET v = 'b'",
        "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN UPDATE SET (v, n) = (SELECT u.v, 7)",
        "MERGE INTO t USING u ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (u.id + 10, u.v, 1, 999)",
        "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DO NOTHING",
        "MERGE INTO ONLY t USING u ON t.id = u.id WHEN MATCHED THEN UPDATE SET v = u.v",
        "INSERT INTO t AS x (id, v) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET v = 'y'",
        "INSERT INTO t (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET (v, n) = (SELECT excluded.v, 5)",
        "INSERT INTO t SELECT * FROM u ON CONFLICT (id) DO UPDATE SET v = excluded.v",
        "INSERT INTO t SELECT id + 10, v, n, last_token FROM u",
        "INSERT INTO t SELECT u.* FROM u",
        "INSERT INTO t SELECT (u).* FROM u",
        // one key new, one taken: the statement fails for every token, and fenced must not make it land
        "INSERT INTO t (id, v) VALUES (3, 'a') UNION ALL VALUES (1, 'b')",
        "INSERT INTO t (id, v) TABLE u",
        "WITH x AS (WITH y AS (DELETE FROM t RETURNING *) SELECT * FROM y) SELECT * FROM x",
        "SELECT * FROM (WITH y AS (DELETE FROM t RETURNING *) SELECT * FROM y) z",
        "CREATE TEMP TABLE tt AS WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        "WITH t AS (SELECT 1) UPDATE t SET v = 'x'",
        "WITH a AS (UPDATE t SET v = 'a' WHERE id = 1 RETURNING id), b AS (DELETE FROM t WHERE id = 2 RETURNING id)"
                + " SELECT * FROM a, b",
        "WITH a AS NOT MATERIALIZED (DELETE FROM t WHERE id = 1 RETURNING id) SELECT * FROM a",
        "TRUNCATE TABLE ONLY public.t",
        "PREPARE p AS DELETE FROM t; EXECUTE p",
        "COPY t FROM STDIN",
        "CREATE TABLE c () INHERITS (t); INSERT INTO c VALUES (7, 'c', 7, 999)",
        "UPDATE t SET v = 'x' FROM {oj u LEFT OUTER JOIN u u2 ON u.id = u2.id} WHERE u.id = t.id",
        "UPDATE t SET v = {fn ucase($$'$$)} WHERE id = 1 OR v = '}'",
        "UPDATE t SET v = {fn ucase(E'\\'')} WHERE id = 1 OR v = '}'",
        "{call pg_catalog.now()}; UPDATE t SET v = 'x' WHERE id = 1",
        "UPDATE t SET v = 'x' WHERE id = 1 {fn }",
    };

    @Test
    void attacksThatHeld() throws SQLException {
        List<String> wrong = new ArrayList<>();
        TestDatabase db = fresh();
        for (String sql : HELD) {
            for (boolean prepared : new boolean[] {false, true}) {
                String what = (prepared ? "PS " : "ST ") + sql;
                reset(db);
                String before = rows(db, "t");
                try (Connection c = fenced(db, "t");
                        FencingScope ignored = Fencing.bind(STALE)) {
                    Outcome.of(c, sql, prepared);
                }
                if (!before.equals(rows(db, "t"))) {
                    wrong.add(what + ": stale token changed rows " + rows(db, "t"));
                }
                reset(db);
                String rawError;
                try (Connection c = db.rawConnection()) {
                    rawError = Outcome.of(c, sql, prepared);
                }
                String rawAfter = rows(db, "t").replace("|" + ROW + ";", "|X;").replace("|null;", "|X;");
                reset(db);
                try (Connection c = fenced(db, "t");
                        FencingScope ignored = Fencing.bind(CURRENT)) {
                    String e = Outcome.of(c, sql, prepared);
                    String after = rows(db, "t").replace("|" + ROW + ";", "|X;").replace("|" + CURRENT + ";", "|X;");
                    boolean refused = e != null && e.startsWith("UnsupportedStatement");
                    if (!refused && ((rawError == null) != (e == null) || !after.equals(rawAfter))) {
                        wrong.add(what + ": current token differs from raw: raw " + rawError + " " + rawAfter
                                + " / fenced " + e + " " + after);
                    }
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    private static void reset(TestDatabase db) {
        db.clearTombstones();
        db.execute(
                "DROP TABLE IF EXISTS tt, c",
                "DEALLOCATE ALL",
                "TRUNCATE t, u",
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, 'two', 2, " + ROW + ")",
                "INSERT INTO u VALUES (1, 'uone', 1, " + ROW + "), (2, 'utwo', 2, " + ROW + ")");
    }

    /**
     * A VALUES list with a set operation after it: refused until JSqlParser's printout of it could not be read back,
     * now fenced by position, the token added around the query, so every row it inserts carries the writer's token
     * (an INSERT of new keys is not a stale write: it overwrites nothing, and tombstones guard deleted keys).
     */
    @Test
    void aValuesUnionInsertIsFencedAndEveryRowCarriesTheToken() throws SQLException {
        String sql = "INSERT INTO t (id, v) VALUES (3, 'a') UNION ALL VALUES (4, 'b')";
        for (boolean prepared : new boolean[] {false, true}) {
            TestDatabase db = fresh();
            reset(db);
            try (Connection c = fenced(db, "t");
                    FencingScope ignored = Fencing.bind(CURRENT)) {
                assertTrue(c.nativeSQL(sql).contains("fenced_src"), c.nativeSQL(sql));
                assertEquals(null, Outcome.of(c, sql, prepared));
            }
            assertEquals("1|one|" + ROW + ";2|two|" + ROW + ";3|a|" + CURRENT + ";4|b|" + CURRENT + ";", rows(db, "t"));
        }
    }

    /** Sanity: the harness sees a plain stale write refused. */
    @Test
    void aPlainStaleUpdateIsRefused() throws SQLException {
        TestDatabase db = fresh();
        try (Connection c = fenced(db, "t");
                FencingScope ignored = Fencing.bind(STALE);
                Statement s = c.createStatement()) {
            assertThrows(StaleTokenException.class, () -> s.executeUpdate("UPDATE t SET v = 'x' WHERE id = 1"));
        }
        assertEquals("1|one|" + ROW + ";2|two|" + ROW + ";", rows(db, "t"));
    }
}
