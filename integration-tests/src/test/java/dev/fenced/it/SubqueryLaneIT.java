package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.EachForm;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.RawVsFenced;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * UPDATEs and DELETEs whose WHERE or SET values hold parenthesised read-only subqueries, which the skeleton-first lane
 * now plans (ReadOnlySubqueries): IN, EXISTS, scalar and ANY forms, correlated and not, reading a protected table
 * ({@code k}) and an unprotected one ({@code s}), ordered and limited, nested, with quoted names and comments. Each
 * runs raw, and fenced with a current, a stale and no token, as a plain and as a prepared statement, against a real
 * PostgreSQL. With the current token it must change exactly what raw PostgreSQL changes (the fence column aside) and
 * fail or succeed as raw does; with a stale or no token it must change nothing. {@code t} keeps tombstones: a key the
 * current holder deleted through a subquery DELETE stays deleted for a stale holder's INSERT.
 */
@DisplayName("SubqueryLaneIT: UPDATE and DELETE with subqueries, raw vs fenced with a current, stale and no token")
class SubqueryLaneIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE nk (id int, v text, n bigint, last_token bigint)",
                "CREATE TABLE k (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE s (id int, v text, n bigint)",
                "CREATE TABLE \"S\" (\"Id\" int, v text)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, nk, k, s, \"S\"",
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + "), (4, 'four', 4, " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + ")",
                "INSERT INTO k VALUES (2, 'k2', 20, " + ROW + "), (3, 'k3', 30, " + ROW + ")",
                "INSERT INTO s VALUES (1, 'one', 10), (3, 'x', 30), (4, 'four', 40), (4, 'again', 41)",
                "INSERT INTO \"S\" VALUES (2, 'two'), (3, 'three')");
    }

    /** Every row of the written tables, with or without the fence column, in a stable order. */
    private static String rows(boolean withToken) {
        String token = withToken ? ", last_token" : "";
        return db.rows("SELECT 't', id, v, n" + token + " FROM t UNION ALL SELECT 'nk', id, v, n" + token
                + " FROM nk UNION ALL SELECT 'k', id, v, n" + token + " FROM k ORDER BY 1, 2");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk,k"));
    }

    /** Forms the lane plans; PostgreSQL runs each (most change rows, a few fail as raw does). */
    static final List<String> FORMS = List.of(
            "UPDATE t SET v = 'in' WHERE id IN (SELECT id FROM s WHERE n > 20)",
            "UPDATE t SET v = 'ex' WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id AND s.v = t.v)",
            "UPDATE t AS x SET v = 'ex' WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.id = x.id)",
            "UPDATE t SET v = (SELECT max(v) FROM s) WHERE id = 1",
            "UPDATE t SET n = (SELECT count(*) FROM s WHERE s.id = t.id) WHERE id > 1",
            "UPDATE t SET v = (SELECT s.v FROM s WHERE s.id = t.id ORDER BY s.n LIMIT 1) WHERE id = 4",
            "UPDATE t SET v = (SELECT s.v FROM s WHERE s.id = t.id) WHERE id = 4",
            "UPDATE t SET v = 'k' WHERE id = ANY (SELECT id FROM k ORDER BY id OFFSET 1 ROWS FETCH NEXT 1 ROWS ONLY)",
            "UPDATE t SET v = 'q' WHERE id IN (SELECT \"Id\" FROM \"S\" /* ? ' */ WHERE v <> ?) RETURNING id, v",
            "UPDATE t SET (v, n) = (SELECT v, n FROM k WHERE k.id = t.id) WHERE id IN (SELECT id FROM k)",
            "UPDATE t SET v = 'nest' WHERE id IN (SELECT id FROM s WHERE id IN (SELECT id FROM k)) -- c ?\n",
            "UPDATE t SET n = n + (SELECT 1) WHERE id = 2",
            "UPDATE nk SET v = 'in' WHERE id IN (SELECT id FROM s LIMIT 1)",
            "UPDATE k SET v = 'lim' WHERE id IN (SELECT id FROM s ORDER BY id DESC LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > 20)",
            "DELETE FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id AND s.v = t.v) RETURNING id, last_token",
            "DELETE FROM t x WHERE x.n = (SELECT min(n) FROM k)",
            "DELETE FROM t WHERE id IN (SELECT id FROM k ORDER BY id LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT \"Id\" FROM \"S\" WHERE v = ?) ;",
            "DELETE FROM t WHERE id = ANY (SELECT id FROM s ORDER BY n OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE id IN (SELECT id FROM k)) /* c */",
            "DELETE FROM nk WHERE id IN (SELECT id FROM s)",
            "DELETE FROM k WHERE id NOT IN (SELECT id FROM s)",
            "DELETE FROM t WHERE id = (SELECT id FROM s)");

    /**
     * Raw vs fenced with a current, stale and no token, every {@code ?} bound to {@code 'three'}: raw runs the
     * bound text; fenced runs it plain, or the text with its parameters prepared.
     */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk,k")
                .reset(SubqueryLaneIT::reset)
                .untouched(() -> rows(true))
                .compared(() -> rows(false))
                .boundTo("'three'")
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void subqueryFormsAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(FORMS, attack());
    }

    /** Each form is fenced, not passed: the stale check is in what fenced sends, and, for t's DELETEs, the hand-over. */
    @Test
    void theSentTextCarriesTheGuard() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            for (String sql : FORMS) {
                String sent = c.nativeSQL(sql);
                boolean handsOver = sql.startsWith("DELETE FROM t ") || sql.startsWith("DELETE FROM k ");
                if (!sent.contains("fenced-stale") || handsOver != sent.contains("fenced.deleter")) {
                    wrong.put(sql, sent);
                }
            }
            assertTrue(wrong.isEmpty(), wrong.toString());
        }
    }

    /** The WHEREs the DELETE evaluates twice may not pick other rows the second time: refused, not changed. */
    @Test
    void unrepeatableSubqueriesInADeleteAreRefused() throws SQLException {
        for (String sql : new String[] {
            "DELETE FROM t WHERE id IN (SELECT id FROM s LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s OFFSET 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s FOR UPDATE SKIP LOCKED)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE random() < 0.5)"
        }) {
            reset();
            String before = rows(true);
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(CURRENT)) {
                String e = Outcome.of(c, sql, true);
                assertTrue(e != null && e.contains(":FN003:"), sql + ": " + e);
            }
            assertEquals(before, rows(true), sql);
        }
    }

    /** A key the current holder deleted through a subquery DELETE stays deleted for a stale INSERT. */
    @Test
    void aStaleInsertDoesNotBringBackAKeyDeletedThroughASubquery() throws SQLException {
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(null, Outcome.of(c, "DELETE FROM t WHERE id IN (SELECT id FROM k WHERE n = 20)", true));
        }
        String afterDelete = rows(true);
        assertTrue(!afterDelete.contains("t,2,"), afterDelete);
        for (boolean prepared : new boolean[] {false, true}) {
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, "INSERT INTO t (id, v) VALUES (2, 'ghost')", prepared);
                assertTrue(e != null && !e.contains(":FN003:"), e);
            }
            assertEquals(afterDelete, rows(true));
        }
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(null, Outcome.of(c, "INSERT INTO t (id, v) VALUES (2, 'back')", true));
        }
    }
}
