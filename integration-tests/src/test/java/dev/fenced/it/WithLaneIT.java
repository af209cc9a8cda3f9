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
 * UPDATEs, DELETEs and INSERTs after a WITH of read-only queries, which the skeleton-first lane now plans
 * (ReadOnlyWith): plain, RECURSIVE, MATERIALIZED and NOT MATERIALIZED queries with column lists, several queries,
 * queries reading a protected table ({@code k}) and an unprotected one ({@code s}), a query named like an unprotected
 * table, parameters and comments in the WITH. Each runs raw, and fenced with a current, a stale and no token, as a
 * plain and as a prepared statement, against a real PostgreSQL: with the current token it must change exactly what
 * raw PostgreSQL changes (the fence column aside) and fail or succeed as raw does; with a stale or no token it must
 * change nothing. The INSERTs write taken keys (ON CONFLICT DO UPDATE, or a key that fails as raw fails): a new
 * key's INSERT is fenced by its token alone, with no row to check.
 */
@DisplayName("WithLaneIT: writes after a WITH of read-only queries, raw vs fenced with a current, stale and no token")
class WithLaneIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE k (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE s (id int, v text, n bigint)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, k, s",
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + "), (4, 'four', 4, " + ROW + ")",
                "INSERT INTO k VALUES (2, 'k2', 20, " + ROW + "), (3, 'k3', 30, " + ROW + ")",
                "INSERT INTO s VALUES (1, 'one', 10), (3, 'x', 30), (4, 'four', 40), (4, 'again', 41)");
    }

    /** Every row of the written tables, with or without the fence column, in a stable order. */
    private static String rows(boolean withToken) {
        String token = withToken ? ", last_token" : "";
        return db.rows("SELECT 't', id, v, n" + token + " FROM t UNION ALL SELECT 'k', id, v, n" + token
                + " FROM k ORDER BY 1, 2");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,k"));
    }

    /** Forms the lane plans; PostgreSQL runs each (most change rows, a few fail as raw does). */
    static final List<String> FORMS = List.of(
            "WITH w AS (SELECT id FROM s WHERE n > 20) UPDATE t SET v = 'in' WHERE id IN (SELECT id FROM w)",
            "WITH w AS (SELECT id FROM s WHERE v = ?) UPDATE t SET v = ? WHERE id IN (SELECT id FROM w)",
            "with w (i) as materialized (select id from k) update t set n = 7 where id in (select i from w)"
                    + " returning id, v",
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2), w AS NOT MATERIALIZED"
                    + " (SELECT i FROM r) UPDATE t SET v = 'rec' WHERE id IN (SELECT i FROM w)",
            "WITH w AS (SELECT max(v) AS m FROM s) UPDATE t SET v = (SELECT m FROM w) WHERE id = 1",
            "WITH w AS (SELECT id, n FROM s) UPDATE t SET n = (SELECT max(w.n) FROM w WHERE w.id = t.id) WHERE id > 1",
            "WITH /* ? ' */ w AS (SELECT id FROM s) UPDATE t AS x SET v = 'al' WHERE x.id IN (SELECT id FROM w) -- c ?\n",
            "WITH w AS (SELECT id FROM k) UPDATE k SET v = 'kk' WHERE id IN (SELECT id FROM w)",
            "WITH w AS (SELECT 1 AS id) UPDATE t SET id = 2 WHERE id IN (SELECT id FROM w)",
            "WITH w AS (SELECT id FROM s WHERE n > 20) DELETE FROM t WHERE id IN (SELECT id FROM w)",
            "WITH w AS (SELECT id FROM s WHERE v = ?) DELETE FROM t WHERE id IN (SELECT id FROM w) RETURNING id",
            "WITH w AS (SELECT id FROM k ORDER BY id LIMIT 1) DELETE FROM t x WHERE x.id IN (SELECT id FROM w)",
            "WITH a AS (SELECT id FROM s), b AS (SELECT id FROM k) DELETE FROM t WHERE id IN (SELECT id FROM a)"
                    + " AND id NOT IN (SELECT id FROM b) ;",
            "WITH w AS (SELECT id FROM s) DELETE FROM k WHERE id IN (SELECT id FROM w)",
            "WITH w AS (SELECT 1) INSERT INTO t (id, v) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "WITH w AS (SELECT 1) INSERT INTO t AS x (id, v) VALUES (2, 'up'), (3, 'up') ON CONFLICT (id)"
                    + " DO UPDATE SET v = excluded.v RETURNING id",
            "WITH w AS (SELECT 1) INSERT INTO t (id, v) VALUES (1, 'taken')",
            "WITH w AS (SELECT 1) INSERT INTO k (id, v) VALUES (2, ?) ON CONFLICT (id) DO UPDATE SET v = 'kx'");

    /** Raw vs fenced with a current, stale and no token, every {@code ?} bound to {@code 'three'}. */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,k")
                .reset(WithLaneIT::reset)
                .untouched(() -> rows(true))
                .compared(() -> rows(false))
                .boundTo("'three'")
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void withFormsAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(FORMS, attack());
    }

    /** Each form is fenced, not passed: the stale check is in what fenced sends, and the WITH as written. */
    @Test
    void theSentTextCarriesTheGuardAndTheWith() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            for (String sql : FORMS) {
                String sent = c.nativeSQL(sql);
                // the WITH kept in front (a comment in it is sent as a space)
                String query = sql.substring(sql.indexOf('('), sql.indexOf(") ") + 1);
                boolean withKept = sent.regionMatches(true, 0, "WITH", 0, 4) && sent.contains(query);
                if (!sent.contains("fenced-stale") && !sent.contains("CAST(? AS bigint)") || !withKept) {
                    wrong.put(sql, sent);
                }
            }
            assertTrue(wrong.isEmpty(), wrong.toString());
        }
    }

    /** A WITH query a DELETE could evaluate twice with another answer (NOT MATERIALIZED, LIMIT): never unchecked. */
    @Test
    void aStaleDeleteAfterAnUnrepeatableWithChangesNothing() throws SQLException {
        for (String sql : new String[] {
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM w)",
            "WITH w AS (SELECT id FROM s FOR UPDATE SKIP LOCKED) DELETE FROM t WHERE id IN (SELECT id FROM w)",
            "WITH t AS (SELECT 9 AS id) DELETE FROM t WHERE id IN (SELECT id FROM s)"
        }) {
            reset();
            String before = rows(true);
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE)) {
                Outcome.of(c, sql, true);
            }
            assertEquals(before, rows(true), sql);
        }
    }
}
