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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * INSERTs whose source is a query ({@code SELECT}, {@code TABLE}, {@code VALUES ... UNION ...}, VALUES rows holding
 * subqueries), with and without ON CONFLICT, which the skeleton-first lane now plans, and the ones with ON CONFLICT DO
 * UPDATE that JSqlParser cannot read, which the parser's fallback now fences the same way (they were refused): each
 * runs raw, and fenced with a current, a stale and no token, against a real PostgreSQL. With the current token the
 * rows' data must be what raw PostgreSQL leaves (and the statement fail or succeed as raw does); with a stale token or
 * none, no row that existed before may change (a DO UPDATE that meets a conflict fails on the guard; new keys may
 * still be inserted, as by any stale INSERT), and nothing is refused as unsupported. {@code t} has a primary key,
 * {@code nk} none; {@code src} is read, never written.
 */
@DisplayName("InsertQueryIT: INSERT ... SELECT / TABLE / VALUES UNION [ON CONFLICT] raw vs fenced")
class InsertQueryIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int CONSTRAINT t_pkey PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE nk (id int, v text, n bigint, last_token bigint)",
                "CREATE TABLE src (id int, v text)",
                "INSERT INTO src VALUES (1, 's1'), (3, 's3'), (5, 's5'), (6, NULL)");
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

    /** The rows there before the statement, fence column included: t's keys 1 to 4, nk's but those forms add. */
    private static String existing() {
        return db.rows("SELECT 't', id, v, n, last_token FROM t WHERE id <= 4 UNION ALL"
                + " SELECT 'nk', id, v, n, last_token FROM nk WHERE v IS DISTINCT FROM 'dup' ORDER BY 1, 2, 3, 4, 5");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk"));
    }

    /** Query sources without ON CONFLICT or with DO NOTHING. */
    static final List<String> QUERY_FORMS = List.of(
            "INSERT INTO t (id, v) SELECT id + 10, v FROM src",
            "INSERT INTO t (id, v) SELECT DISTINCT id + 10, v FROM src WHERE id > 1 ORDER BY 1 LIMIT 2",
            "INSERT INTO t (id, v) TABLE src",
            "INSERT INTO t (id, v) VALUES (11, 'a') UNION ALL VALUES (12, 'b')",
            "INSERT INTO t (id, v) VALUES (11, 'a') UNION SELECT id + 20, v FROM src",
            "INSERT INTO t (id, v) VALUES (11, 'a'), (12, 'b') ORDER BY 1 DESC LIMIT 1",
            "INSERT INTO t (id, v) (SELECT id + 30, v FROM src) UNION ALL (SELECT 40, 'forty')",
            "INSERT INTO t (id, v) SELECT s.id + 10, t.v FROM src s JOIN t USING (id) RETURNING id, last_token",
            "INSERT INTO t (id, v) SELECT id, v FROM src ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, v) TABLE src ON CONFLICT (id) DO NOTHING RETURNING *",
            "INSERT INTO t (id, v) VALUES ((SELECT max(id) + 1 FROM t), (SELECT v FROM src WHERE id = 5))",
            "INSERT INTO t (id, v) VALUES ((SELECT max(id) FROM src), 'm') ON CONFLICT (id) DO NOTHING",
            "INSERT INTO nk (id, v) SELECT id, 'dup' FROM src ON CONFLICT DO NOTHING",
            "INSERT INTO nk (id, v, n) SELECT id, 'dup', (SELECT count(*) FROM t) FROM src");

    /**
     * Query sources with ON CONFLICT DO UPDATE, planned by the lane now; the VALUES ... UNION one was refused before
     * (JSqlParser cannot read its own fenced printout), as were the unary chain and the IS chain ones (JSqlParser
     * cannot read them; the oracle test shows the parser's fallback now fences them as the lane does).
     */
    static final List<String> QUERY_UPSERT_FORMS = List.of(
            "INSERT INTO t (id, v) SELECT id, v FROM src ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t AS x (id, n) SELECT id, 5 FROM src ON CONFLICT (id) DO UPDATE SET n = x.n + excluded.n"
                    + " RETURNING x.id, x.n",
            "INSERT INTO t (id, v) TABLE src ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES (1, 'x') UNION ALL VALUES (13, 'y') ON CONFLICT (id) DO UPDATE"
                    + " SET v = excluded.v",
            "INSERT INTO t (id, v) SELECT id, v FROM src WHERE id IN (SELECT id FROM t) ON CONFLICT (id) DO UPDATE"
                    + " SET v = excluded.v WHERE t.v IS DISTINCT FROM excluded.v",
            "INSERT INTO t (id, v) (SELECT id, v FROM src ORDER BY id LIMIT 1) ON CONFLICT ON CONSTRAINT t_pkey"
                    + " DO UPDATE SET v = 'p'",
            "INSERT INTO t (id, v) VALUES ((SELECT max(id) FROM src), 'm') ON CONFLICT (id) DO UPDATE"
                    + " SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES ((SELECT min(id) FROM src), 'm'), (9, (SELECT v FROM src WHERE id = 3))"
                    + " ON CONFLICT (id) DO UPDATE SET v = t.v || excluded.v",
            "INSERT INTO t (id, v) SELECT id, v FROM src ON CONFLICT (id) DO UPDATE SET v = excluded.v;",
            "INSERT INTO nk (id, v) SELECT id, 'dup' FROM src ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, n) SELECT id, - - 5 FROM src ON CONFLICT (id) DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, v) VALUES ((SELECT max(id) FROM src), 'm') ON CONFLICT (id) DO UPDATE"
                    + " SET v = excluded.v WHERE excluded.v IS NOT NULL IS TRUE");

    /**
     * Raw vs fenced with a current, stale and no token: a stale or no token changes no row that was there; every row
     * the current token inserts carries it.
     */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk")
                .reset(InsertQueryIT::reset)
                .untouched(InsertQueryIT::existing)
                .compared(InsertQueryIT::data)
                .afterCurrent(() -> {
                    String tokens = db.rows("SELECT CASE WHEN count(*) = 0 THEN 'tokened' ELSE 'untokened' END"
                            + " FROM t WHERE id > 4 AND last_token IS DISTINCT FROM " + CURRENT);
                    return tokens.contains("untokened") ? "a row the current holder inserted lacks its token" : null;
                })
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void queryInsertsAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(QUERY_FORMS, attack());
    }

    @Test
    void queryUpsertsAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(QUERY_UPSERT_FORMS, attack());
    }

    /** Each form is fenced, not passed: the fence column joins the insert, DO UPDATE carries the stale check. */
    @Test
    void theSentTextCarriesTheTokenAndTheGuard() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            List<String> forms = new ArrayList<>(QUERY_FORMS);
            forms.addAll(QUERY_UPSERT_FORMS);
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

    /** A stale holder's query upsert meets a conflict: refused by the guard, nothing of the statement written. */
    @Test
    void aStaleQueryUpsertOfAnExistingKeyIsRefused() throws SQLException {
        for (String sql : new String[] {
            "INSERT INTO t (id, v) SELECT id, v FROM src ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES ((SELECT min(id) FROM src), 'stale') ON CONFLICT (id) DO UPDATE"
                    + " SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES (9, 'new') UNION ALL VALUES (1, 'stale') ON CONFLICT (id) DO UPDATE"
                    + " SET v = excluded.v",
        }) {
            for (boolean prepared : new boolean[] {false, true}) {
                reset();
                String before = data();
                try (Connection c = fenced();
                        FencingScope ignored = Fencing.bind(STALE)) {
                    String e = Outcome.of(c, sql, prepared);
                    assertTrue(e != null && e.contains(":FN001:"), sql + ": " + e); // StaleTokenException
                }
                assertEquals(before, data(), sql);
            }
        }
    }
}
