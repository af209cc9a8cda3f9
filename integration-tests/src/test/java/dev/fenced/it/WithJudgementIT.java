package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The WITH before a write, judged alike on both paths (WithQuery, StatementClassifier.readOnlyWithQueries), against a
 * real PostgreSQL. A fenced DELETE evaluates its WHERE twice; a query of the WITH that the WHERE reads and that
 * PostgreSQL inlines ({@code NOT MATERIALIZED}) is evaluated once per copy, so one that could pick other rows the
 * second time (TABLESAMPLE, an unordered LIMIT, a row lock, a volatile function) is refused, on the parser's path
 * too (most of these forms the lane declines). Before, that path fenced them: the DELETE removed only the rows both
 * evaluations picked (about a quarter of the table for a 50% sample, where raw PostgreSQL removes half). A query
 * computed once (MATERIALIZED, or without option and referenced by the repeated WHERE, which PostgreSQL then no
 * longer inlines: the plan shows it) is fenced and changes what raw PostgreSQL changes; so are WITH queries whose
 * column labels are spelled like write keywords ({@code SELECT 1 AS update}), which were refused as if the WITH
 * held a write.
 */
@DisplayName("WithJudgementIT: WITH queries a fenced DELETE would evaluate twice, and write-keyword labels in a WITH")
class WithJudgementIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;
    static final int ROWS = 400;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE s (id int, n bigint)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, s",
                "INSERT INTO t SELECT g, 'v' || g, g, " + ROW + " FROM generate_series(1, " + ROWS + ") g",
                "INSERT INTO s SELECT g, g FROM generate_series(1, " + ROWS + ") g");
    }

    private static String rows() {
        return db.rows("SELECT id, v, n, last_token FROM t ORDER BY id");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t"));
    }

    /**
     * Forms whose WHERE reads a query PostgreSQL evaluates once per copy of the repeated WHERE, and that could pick
     * other rows the second time; the first ones the lane declines (TABLESAMPLE, a row lock, a DELETE inside the
     * WITH), so the parser's path fences or refuses them.
     */
    static final List<String> REFUSED = List.of(
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s TABLESAMPLE BERNOULLI (50)) DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w)",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s TABLESAMPLE SYSTEM (50)) DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w) RETURNING id",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s FOR UPDATE SKIP LOCKED) DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w)",
            "WITH a AS (SELECT id FROM s TABLESAMPLE BERNOULLI (50)), w AS NOT MATERIALIZED (SELECT id FROM a)"
                    + " DELETE FROM t WHERE id IN (SELECT id FROM w)",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s TABLESAMPLE BERNOULLI (50)), d AS (DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w) RETURNING id) SELECT count(*) FROM d",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s WHERE random() < 0.5) DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w)",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s LIMIT 200) DELETE FROM t WHERE id IN (SELECT id FROM w)");

    /**
     * Each refused form is refused as unsupported, naming the table and the WITH query, and changes nothing, with
     * the current token too. Where fenced ran it instead (before the judgement), the failure says what it deleted
     * against what raw PostgreSQL deleted from the same rows, and how many tombstones it recorded.
     */
    @Test
    void unrepeatableWithQueriesAreRefusedNamingTheTableAndTheQuery() throws SQLException {
        List<String> wrong = new ArrayList<>();
        for (String sql : REFUSED) {
            String query = sql.contains(" a AS (") ? "a" : "w";
            for (boolean prepared : new boolean[] {false, true}) {
                reset();
                String before = rows();
                long rawDeleted;
                try (Connection c = db.rawConnection()) {
                    String error = Outcome.of(c, sql, prepared);
                    assertEquals(null, error, "raw PostgreSQL runs " + sql);
                    rawDeleted = ROWS - db.queryLong("SELECT count(*) FROM t");
                }
                reset();
                String error;
                try (Connection c = fenced();
                        FencingScope ignored = Fencing.bind(CURRENT)) {
                    error = Outcome.of(c, sql, prepared);
                }
                long fencedDeleted = ROWS - db.queryLong("SELECT count(*) FROM t");
                long tombstones = db.queryLong("SELECT count(*) FROM fenced_tombstone");
                boolean refused = error != null
                        && error.contains(":FN003:")
                        && error.contains("protected table t refused")
                        && error.contains("the WITH query " + query + ",");
                if (!refused || !before.equals(rows())) {
                    wrong.add((prepared ? "PS " : "ST ") + sql + "\n    " + (error != null ? error : "fenced ran it")
                            + ": deleted " + fencedDeleted + " rows (raw PostgreSQL " + rawDeleted + "), "
                            + tombstones + " tombstones");
                }
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " not refused:\n" + String.join("\n", wrong));
    }

    /** Forms fenced: the WITH's queries are each computed once, or are not read by the repeated WHERE. */
    static final List<String> FENCED = List.of(
            "WITH w AS (SELECT id FROM s WHERE id > 1 LIMIT 3) DELETE FROM t WHERE id IN (SELECT id FROM w)",
            "WITH w AS MATERIALIZED (SELECT id FROM s LIMIT 2) DELETE FROM t WHERE id IN (SELECT id FROM w)",
            "WITH w AS MATERIALIZED (SELECT id FROM s TABLESAMPLE BERNOULLI (100)) DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w) AND id < 5",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s ORDER BY id LIMIT 2) DELETE FROM t"
                    + " WHERE id IN (SELECT id FROM w)",
            "WITH w AS NOT MATERIALIZED (SELECT id FROM s LIMIT 2) DELETE FROM t WHERE id = 3",
            "WITH w AS (SELECT 1 AS update) UPDATE t SET v = 'u' WHERE id IN (SELECT 2 FROM w)",
            "WITH w AS (SELECT id AS delete FROM s WHERE id < 3) DELETE FROM t WHERE id IN (SELECT * FROM w)",
            "WITH w AS (SELECT id insert FROM s WHERE id = 4), v AS (SELECT 1 AS merge) INSERT INTO t (id, v)"
                    + " VALUES (4, 'x') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "WITH w AS (SELECT id AS update FROM s TABLESAMPLE BERNOULLI (100) WHERE id < 3) UPDATE t SET v = 'w'"
                    + " WHERE id IN (SELECT * FROM w)",
            "WITH w AS (SELECT id AS update FROM s WHERE n < 3 FOR UPDATE) DELETE FROM t WHERE id IN (SELECT * FROM w)");

    @Test
    void formsComputedOnceAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(
                FENCED,
                RawVsFenced.on(db, "t")
                        .reset(WithJudgementIT::reset)
                        .untouched(WithJudgementIT::rows)
                        .tokens(CURRENT, STALE)
                        .tokensIgnored()
                        .mustChangeAndRun()
                        .build());
    }

    /**
     * PostgreSQL's rule, as the judgement relies on it: in what fenced sends for a query without option that the
     * WHERE reads, the query is referenced twice and computed once (a CTE node in the plan); written NOT
     * MATERIALIZED, the same text inlines it (no CTE node: one evaluation per copy).
     */
    @Test
    void postgresqlComputesOnceWhatTheRepeatedWhereReadsUnlessNotMaterialized() throws SQLException {
        reset();
        String sql = "WITH w AS (SELECT id FROM s WHERE id > 1 LIMIT 3) DELETE FROM t WHERE id IN (SELECT id FROM w)";
        String sent;
        try (Connection c = fenced()) {
            sent = c.nativeSQL(sql).replace("?", String.valueOf(CURRENT));
        }
        assertTrue(sent.contains("CASE WHEN (id IN (SELECT id FROM w))"), sent);
        String once = explain(sent);
        assertTrue(once.contains("CTE w"), once);
        String inlined = explain(sent.replace("WITH w AS (", "WITH w AS NOT MATERIALIZED ("));
        assertFalse(inlined.contains("CTE w"), inlined);
    }

    private static String explain(String sql) throws SQLException {
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement()) {
            return TestDatabase.rows(c, "EXPLAIN (COSTS OFF) " + sql);
        }
    }
}
