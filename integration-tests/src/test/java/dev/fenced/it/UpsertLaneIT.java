package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * INSERT ... ON CONFLICT, which the skeleton-first lane now plans (ConflictClause), and the upserts JSqlParser cannot
 * read, which the parser's fallback now fences the same way: each runs raw, and fenced with a current, a stale and no
 * token, against a real PostgreSQL. With the current token the rows' data must be what raw PostgreSQL leaves (and the
 * statement fail or succeed as raw does); with a stale token or none, no row that existed before may change (a DO
 * UPDATE that meets a conflict fails on the guard; new keys may still be inserted, as by any stale INSERT). A key the
 * current holder deleted stays deleted for a stale holder's upsert. {@code t} has a primary key (and tombstones),
 * {@code nk} none.
 */
@DisplayName("UpsertLaneIT: INSERT ... ON CONFLICT raw vs fenced with a current, stale and no token")
class UpsertLaneIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int CONSTRAINT t_pkey PRIMARY KEY, v text, n bigint, last_token bigint)",
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
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, NULL, -2, " + ROW + "), (3, 'three', 3, " + ROW
                        + "), (4, 'four', 2, " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + ")");
    }

    /** The rows' data without the fence column, which raw PostgreSQL does not write. */
    private static String data() {
        return db.rows("SELECT 't', id, v, n FROM t UNION ALL SELECT 'nk', id, v, n FROM nk ORDER BY 1, 2, 3, 4");
    }

    /**
     * The rows that were there before the statement, fence column included: t's keys 1 to 4, and nk's rows but the
     * ones the forms add ({@code 'dup'}: nk has no key, so its ON CONFLICT never meets one).
     */
    private static String existing() {
        return db.rows("SELECT 't', id, v, n, last_token FROM t WHERE id <= 4 UNION ALL"
                + " SELECT 'nk', id, v, n, last_token FROM nk WHERE v IS DISTINCT FROM 'dup' ORDER BY 1, 2, 3, 4, 5");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk"));
    }

    /** Upserts the lane plans: DO NOTHING and DO UPDATE, conflict targets, WHERE, RETURNING, aliases, excluded. */
    static final List<String> LANE_FORMS = List.of(
            "INSERT INTO t (id, v) VALUES (1, 'uno'), (9, 'nine') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t AS x (id, n) VALUES (2, 10) ON CONFLICT (id) DO UPDATE SET n = x.n + excluded.n"
                    + " RETURNING x.id, x.n",
            "INSERT INTO t (id, n) VALUES (3, 1), (7, 7) ON CONFLICT (id) DO UPDATE SET n = t.n + 1 WHERE t.n < 100",
            "insert into \"t\" (id, v) values (4, 'x') on conflict on constraint t_pkey do update set v = EXCLUDED.v"
                    + " || '?' -- a comment ? '\n",
            "INSERT INTO t (id, v) VALUES (1, 'a') ON CONFLICT (id) WHERE id > 0 DO NOTHING",
            "INSERT INTO t (id, v) VALUES (1, 'a'), (8, 'b') ON CONFLICT DO NOTHING RETURNING id, last_token",
            "INSERT INTO public.t AS x (id, v) VALUES (1, 'p') ON CONFLICT (id) DO UPDATE SET v = x.v || excluded.v,"
                    + " n = DEFAULT",
            "INSERT INTO t (id, v) VALUES (4, 'y') ON CONFLICT (\"id\") DO UPDATE SET v = excluded.v"
                    + " WHERE t.v = 'no such value'",
            "INSERT INTO t (id, v) VALUES (1, 'a'), (1, 'b') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES (5, 'five') ON CONFLICT (id) DO UPDATE SET v = excluded.v;",
            "INSERT INTO nk (id, v) VALUES (1, 'dup') ON CONFLICT DO NOTHING",
            "INSERT INTO nk (id, v) VALUES (1, 'dup') ON CONFLICT (id) DO UPDATE SET v = excluded.v");

    /** Upserts JSqlParser cannot read (unary chains, IS chains): refused before, fenced by position now. */
    static final List<String> UNREADABLE_FORMS = List.of(
            "INSERT INTO t (id, n) VALUES (2, - - 5) ON CONFLICT (id) DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, v) VALUES (3, 'x') ON CONFLICT (id) DO UPDATE SET v = excluded.v"
                    + " WHERE excluded.v IS NOT NULL IS TRUE",
            "INSERT INTO t (id, n) VALUES (6, - - 6) ON CONFLICT (id) DO UPDATE SET n = - - excluded.n RETURNING *");

    /**
     * Raw vs fenced with a current, stale and no token: a stale or no token changes no row that was there (new keys
     * may still be inserted, as by any stale INSERT); the current token leaves the data raw PostgreSQL leaves.
     */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk")
                .reset(UpsertLaneIT::reset)
                .untouched(UpsertLaneIT::existing)
                .compared(UpsertLaneIT::data)
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void upsertsAreFencedAsPostgresqlRunsThem() throws SQLException {
        List<String> forms = new ArrayList<>(LANE_FORMS);
        forms.addAll(UNREADABLE_FORMS);
        EachForm.holds(forms, attack());
    }

    /** Each form is fenced, not passed: the fence column joins the insert, DO UPDATE carries the stale check. */
    @Test
    void theSentTextCarriesTheTokenAndTheGuard() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            List<String> forms = new ArrayList<>(LANE_FORMS);
            forms.addAll(UNREADABLE_FORMS);
            for (String sql : forms) {
                String sent = c.nativeSQL(sql);
                boolean doUpdate = sql.toUpperCase(java.util.Locale.ROOT).contains("DO UPDATE");
                if (!sent.contains("last_token\")") && !sent.contains("last_token)")
                        || doUpdate != sent.contains("fenced-stale")) {
                    wrong.put(sql, sent);
                }
            }
            assertTrue(wrong.isEmpty(), wrong.toString());
        }
    }

    /** A stale holder's upsert meets a conflict: refused by the guard, nothing of the statement written. */
    @Test
    void aStaleUpsertOfAnExistingKeyIsRefused() throws SQLException {
        reset();
        String before = data();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(STALE)) {
            String e = Outcome.of(
                    c,
                    "INSERT INTO t (id, v) VALUES (9, 'new'), (1, 'stale') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
                    true);
            assertTrue(e != null && e.contains(":FN001:"), String.valueOf(e)); // StaleTokenException
        }
        assertEquals(before, data());
    }

    /** A key the current holder deleted stays deleted for a stale holder's upsert, DO UPDATE or DO NOTHING. */
    @Test
    void aStaleUpsertDoesNotBringBackADeletedKey() throws SQLException {
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertNull(Outcome.of(c, "DELETE FROM t WHERE id = 2", true));
        }
        String afterDelete = data();
        for (String sql : new String[] {
            "INSERT INTO t (id, v) VALUES (2, 'ghost') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t AS x (id, n) VALUES (2, 1) ON CONFLICT (id) DO UPDATE SET n = x.n + excluded.n",
            "INSERT INTO t (id, v) VALUES (2, 'ghost') ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, n) VALUES (2, - - 2) ON CONFLICT (id) DO UPDATE SET n = excluded.n",
        }) {
            for (boolean prepared : new boolean[] {false, true}) {
                try (Connection c = fenced();
                        FencingScope ignored = Fencing.bind(STALE)) {
                    String e = Outcome.of(c, sql, prepared);
                    assertTrue(e != null && !e.contains(":FN003:"), sql + ": " + e);
                }
                assertEquals(afterDelete, data(), sql);
            }
        }
        // the newer holder itself may put the key back through an upsert
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertNull(Outcome.of(
                    c, "INSERT INTO t (id, v) VALUES (2, 'back') ON CONFLICT (id) DO UPDATE SET v = excluded.v", true));
        }
        assertTrue(data().contains("back"), data());
    }
}
