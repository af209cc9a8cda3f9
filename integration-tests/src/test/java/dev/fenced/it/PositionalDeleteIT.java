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
 * DELETEs JSqlParser cannot read (IS chains, jsonpath operators, unary chains, JDBC escapes inside BETWEEN), which
 * fenced refused (FN003) though PostgreSQL runs them, now fenced by position (DeleteSkeleton): each runs raw, and
 * fenced with a current, a stale and no token, against a real PostgreSQL. With the current token it must delete
 * exactly the rows raw PostgreSQL deletes and fail or succeed as raw does; with a stale or no token it must delete
 * nothing. {@code t} keeps tombstones (it has a primary key): a key the current holder deleted through one of these
 * forms stays deleted for a stale holder's INSERT. {@code nk} has no key, so no tombstones.
 */
@DisplayName("PositionalDeleteIT: DELETEs JSqlParser cannot read, raw vs fenced with a current, stale and no token")
class PositionalDeleteIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, j jsonb, d date, last_token bigint)",
                "CREATE TABLE nk (id int, v text, n bigint, last_token bigint)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, nk",
                "INSERT INTO t VALUES (1, 'one', 1, '{\"k\": 1}', DATE '2020-01-10', " + ROW + "),"
                        + " (2, NULL, -2, '{\"k\": 2}', DATE '2020-03-01', " + ROW + "),"
                        + " (3, 'three', 3, '[]', NULL, " + ROW + "),"
                        + " (4, 'four', 2, NULL, DATE '2021-01-01', " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + ")");
    }

    /** Every row of both tables, "table,id,v,n,last_token;", in a stable order. */
    private static String rows() {
        return db.rows("SELECT 't', id, v, n, last_token FROM t UNION ALL"
                + " SELECT 'nk', id, v, n, last_token FROM nk ORDER BY 1, 2");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk"));
    }

    /** The DELETE forms JSqlParser cannot read; PostgreSQL runs each (most delete rows). */
    static final List<String> FORMS = List.of(
            "DELETE FROM t WHERE v IS NOT NULL IS TRUE AND id = 1",
            "DELETE FROM t WHERE (v IS NULL) IS FALSE AND n > 2",
            "DELETE FROM t WHERE v IS NULL IS NOT FALSE",
            "DELETE FROM t WHERE j @? '$.k'",
            "DELETE FROM t WHERE j @@ '$.k == 2'",
            "DELETE FROM t WHERE j @? $$$.k ? ' --$$ RETURNING id, last_token",
            "DELETE FROM t WHERE n = - - 2",
            "DELETE FROM t WHERE - - n = 3 RETURNING *",
            "DELETE FROM t WHERE n BETWEEN {fn abs(-1)} AND {fn abs(2)}",
            "DELETE FROM t WHERE d BETWEEN {d '2020-01-01'} AND {d '2020-06-01'}",
            "DELETE FROM t AS x WHERE x.v IS NOT NULL IS TRUE AND x.id <= 2 RETURNING x.id, x.last_token",
            "DELETE FROM public.t x WHERE x.j @? '$.k' /* ? ' */ AND - - x.n < 2",
            "delete from t where v is not null is true -- trailing ? ' comment\n and id = 3",
            "DELETE FROM t WHERE j @? '$.k';",
            "DELETE FROM t WHERE j @? '$.nothing'",
            "DELETE FROM t WHERE j @@ 'not valid jsonpath ('",
            "DELETE FROM nk WHERE v IS NOT NULL IS TRUE AND id = 1",
            "DELETE FROM nk WHERE n = - - 2 RETURNING *");

    /** Raw vs fenced with a current, stale and no token: a stale or no token deletes nothing and fails. */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk")
                .reset(PositionalDeleteIT::reset)
                .untouched(PositionalDeleteIT::rows)
                .staleMustFail()
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void formsJsqlparserCannotReadAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(FORMS, attack());
    }

    /** Each form is fenced, not passed: what fenced sends holds the stale check and, for t, the tombstone hand-over. */
    @Test
    void theSentTextKeepsTheUsersWhereAndCarriesTheGuard() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            for (String sql : FORMS) {
                String sent = c.nativeSQL(sql);
                boolean tombstoned = !sql.contains(" nk ");
                if (!sent.contains("fenced-stale")
                        || tombstoned != sent.contains("fenced.deleter")
                        || !sent.startsWith(
                                sql.substring(0, sql.indexOf(" WHERE ") < 0 ? 10 : sql.indexOf(" WHERE ")))) {
                    wrong.put(sql, sent);
                }
            }
            assertTrue(wrong.isEmpty(), wrong.toString());
        }
    }

    /** A key the current holder deleted through a form JSqlParser cannot read stays deleted for a stale INSERT. */
    @Test
    void aStaleInsertDoesNotBringBackAKeyDeletedByPosition() throws SQLException {
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(null, Outcome.of(c, "DELETE FROM t WHERE j @@ '$.k == 2' AND v IS NULL IS TRUE", true));
        }
        String afterDelete = rows();
        assertTrue(!afterDelete.contains("t,2,"), afterDelete);
        for (String sql : new String[] {
            "INSERT INTO t (id, v) VALUES (2, 'ghost')", "INSERT INTO t (id, v, n) VALUES (2, 'ghost', - - 2)",
        }) {
            for (boolean prepared : new boolean[] {false, true}) {
                try (Connection c = fenced();
                        FencingScope ignored = Fencing.bind(STALE)) {
                    String e = Outcome.of(c, sql, prepared);
                    assertTrue(e != null && !e.contains(":FN003:"), sql + ": " + e);
                }
                assertEquals(afterDelete, rows(), sql);
            }
        }
        // the newer holder itself may put the key back
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(null, Outcome.of(c, "INSERT INTO t (id, v) VALUES (2, 'back')", true));
        }
    }
}
