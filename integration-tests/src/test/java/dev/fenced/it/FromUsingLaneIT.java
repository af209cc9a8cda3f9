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
 * UPDATE ... FROM and DELETE ... USING, which the skeleton-first lane now plans when the list is plain tables
 * (PlainFromList), and their neighbours the lane leaves to the parser's path (self joins, a protected table in the
 * list, JOIN ... ON): several tables, aliases, quoted and schema-qualified names, join conditions, parameters,
 * RETURNING, relative updates, tables with tombstones ({@code t}, {@code k}) and without a key ({@code nk}). Each
 * runs raw, and fenced with a current, a stale and no token, as a plain and as a prepared statement, against a real
 * PostgreSQL: with the current token it must change exactly what raw PostgreSQL changes (the fence column aside) and
 * fail or succeed as raw does; with a stale or no token it must change nothing.
 */
@DisplayName("FromUsingLaneIT: UPDATE ... FROM and DELETE ... USING, raw vs fenced with a current, stale and no token")
class FromUsingLaneIT {

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
                "CREATE TABLE u (id int, w text)",
                "CREATE TABLE \"S\" (\"Id\" int, v text)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, nk, k, s, u, \"S\"",
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + "), (4, 'four', 4, " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + ")",
                "INSERT INTO k VALUES (2, 'k2', 20, " + ROW + "), (3, 'k3', 30, " + ROW + ")",
                "INSERT INTO s VALUES (1, 'sone', 10), (3, 'three', 30), (4, 'sfour', 40)",
                "INSERT INTO u VALUES (3, 'uthree'), (4, 'ufour')",
                "INSERT INTO \"S\" VALUES (2, 'Stwo'), (3, 'Sthree')");
    }

    /** Every row of the written tables, with or without the fence column, in a stable order. */
    private static String rows(boolean withToken) {
        String token = withToken ? ", last_token" : "";
        return db.rows("SELECT 't', id, v, n" + token + " FROM t UNION ALL SELECT 'nk', id, v, n" + token
                + " FROM nk UNION ALL SELECT 'k', id, v, n" + token + " FROM k ORDER BY 1, 2");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk,k", "fenced.relativeUpdates=allow"));
    }

    /** UPDATE ... FROM and DELETE ... USING forms; PostgreSQL runs each (most change rows, a few fail as raw does). */
    static final List<String> FORMS = List.of(
            "UPDATE t SET v = s.v FROM s WHERE t.id = s.id",
            "UPDATE t AS x SET v = y.v, n = y.n FROM s y WHERE x.id = y.id AND y.n < 40",
            "UPDATE t SET v = s.v || u.w FROM s, u WHERE t.id = s.id AND s.id = u.id",
            "UPDATE t x SET v = y.v FROM s AS y, public.u z WHERE x.id = y.id AND z.id = y.id RETURNING x.id, x.v, z.w",
            "UPDATE public.t SET n = z.n FROM public.s AS z WHERE z.id = t.id RETURNING t.id, t.n, z.v",
            "UPDATE t SET n = n + s.n FROM s WHERE t.id = s.id",
            "UPDATE t SET (v, n) = (s.v, s.n * 2) FROM s WHERE s.id = t.id AND s.v <> 'three'",
            "UPDATE t SET v = \"S\".v FROM \"S\" WHERE \"S\".\"Id\" = t.id",
            "UPDATE t SET v = ? FROM s WHERE s.id = t.id AND s.v <> ?",
            "UPDATE t SET v = u.w FROM u",
            "UPDATE t SET v = s.v FROM s /* ? ' */ WHERE s.id = t.id -- c ?\n",
            "UPDATE t SET v = s.v FROM s WHERE s.id = t.id AND s.id IN (SELECT id FROM u)",
            "UPDATE t SET v = s.v FROM s WHERE s.id = t.id AND s.nothing = 1",
            "UPDATE t SET v = s.v FROM s WHERE s.id = t.id AND t.last_token = " + ROW,
            "UPDATE nk SET v = s.v FROM s WHERE nk.id = s.id",
            "UPDATE k SET n = s.n FROM s WHERE k.id = s.id RETURNING k.*",
            "UPDATE t SET v = t2.v FROM t t2 WHERE t.id = t2.id + 1",
            "UPDATE t SET v = k.v FROM k WHERE k.id = t.id",
            "UPDATE t SET v = s.v FROM s JOIN u ON u.id = s.id WHERE t.id = s.id",
            "DELETE FROM t USING s WHERE t.id = s.id AND s.n > 20",
            "DELETE FROM t x USING s AS y, u WHERE x.id = y.id AND y.id = u.id RETURNING x.id, y.v",
            "DELETE FROM t USING u",
            "DELETE FROM t USING s WHERE t.id = s.id AND s.v = ?",
            "DELETE FROM public.t AS x USING \"S\" WHERE \"S\".\"Id\" = x.id RETURNING *",
            "DELETE FROM t USING s WHERE t.id = s.id AND s.id IN (SELECT id FROM u) /* c */",
            "DELETE FROM t USING s WHERE t.id = s.id AND s.nothing = 1",
            "DELETE FROM nk USING s WHERE nk.id = s.id",
            "DELETE FROM k USING s WHERE k.id = s.id",
            "DELETE FROM t USING t t2 WHERE t.id = t2.id + 1",
            "DELETE FROM t USING k WHERE k.id = t.id");

    /**
     * Raw vs fenced with a current, stale and no token, every {@code ?} bound to {@code 'three'}; every row the
     * current token writes carries it.
     */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk,k")
                .reset(FromUsingLaneIT::reset)
                .untouched(() -> rows(true))
                .compared(() -> rows(false))
                .setting("fenced.relativeUpdates=allow")
                .boundTo("'three'")
                .afterCurrent(FromUsingLaneIT::writtenWithoutTheCurrentToken)
                .tokens(CURRENT, STALE)
                .build();
    }

    /** The rows that carry neither the loaded token nor the current one, or null. */
    private static String writtenWithoutTheCurrentToken() {
        String stamped = db.rows("SELECT 't', id FROM t WHERE last_token NOT IN (" + ROW + ", " + CURRENT
                + ") UNION ALL SELECT 'k', id FROM k WHERE last_token NOT IN (" + ROW + ", " + CURRENT
                + ") UNION ALL SELECT 'nk', id FROM nk WHERE last_token NOT IN (" + ROW + ", " + CURRENT + ")");
        return stamped.isEmpty() ? null : "rows written without the current token: " + stamped;
    }

    @Test
    void fromAndUsingFormsAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(FORMS, attack());
    }

    /** Each form is fenced, not passed: the stale check is in what fenced sends, and, for t's DELETEs, the hand-over. */
    @Test
    void theSentTextCarriesTheGuard() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            for (String sql : FORMS) {
                String sent = c.nativeSQL(sql);
                boolean handsOver = sql.matches("DELETE FROM (public\\.)?[tk] .*");
                if (!sent.contains("fenced-stale") || handsOver != sent.contains("fenced.deleter")) {
                    wrong.put(sql, sent);
                }
            }
            assertTrue(wrong.isEmpty(), wrong.toString());
        }
    }

    /**
     * A USING list with a JOIN: JSqlParser cannot read it and the lane does not plan it (not a plain list), so it is
     * refused, with nothing changed (fail closed; as before this lane).
     */
    @Test
    void aUsingJoinIsRefusedNotRun() throws SQLException {
        String sql = "DELETE FROM t USING s JOIN u ON u.id = s.id WHERE t.id = s.id";
        reset();
        String before = rows(true);
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            String e = Outcome.of(c, sql, true);
            assertTrue(e != null && e.contains(":FN003:"), sql + ": " + e);
        }
        assertEquals(before, rows(true), sql);
    }

    /** A DELETE ... USING whose WHERE could pick other rows when evaluated again is refused, not changed. */
    @Test
    void unrepeatableWheresOfADeleteUsingAreRefused() throws SQLException {
        for (String sql : new String[] {
            "DELETE FROM t USING s WHERE t.id = s.id AND random() < 0.5",
            "DELETE FROM t USING s WHERE t.id = s.id AND s.id IN (SELECT id FROM u LIMIT 1)",
            "DELETE FROM t x USING s WHERE x.id = s.id AND s.id IN (SELECT id FROM u FOR UPDATE SKIP LOCKED)"
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

    /** A key the current holder deleted through a DELETE ... USING stays deleted for a stale INSERT. */
    @Test
    void aStaleInsertDoesNotBringBackAKeyDeletedThroughUsing() throws SQLException {
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(null, Outcome.of(c, "DELETE FROM t USING s WHERE t.id = s.id AND s.n = 30", true));
        }
        String afterDelete = rows(true);
        assertTrue(!afterDelete.contains("t,3,"), afterDelete);
        for (boolean prepared : new boolean[] {false, true}) {
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, "INSERT INTO t (id, v) VALUES (3, 'ghost')", prepared);
                assertTrue(e != null && !e.contains(":FN003:"), e);
            }
            assertEquals(afterDelete, rows(true));
        }
    }
}
