package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.RelativeUpdatePolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The WITH before a write as both paths judge it: the queries a fenced DELETE's repeated WHERE (or a MERGE DELETE's
 * condition) may evaluate once per copy ({@link WithQuery#refuseUnrepeatable}), and write keywords spelled as column
 * labels or names inside a WITH's select queries ({@link StatementClassifier#dmlKeywordIndexes}). Every form is
 * planned with the lane on and off (the parser's path alone), which must agree.
 */
class WithJudgementTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    private final FencingTargets targets = WithFirstOracleTest.targets();
    private final SqlRewriter first = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, true);
    private final SqlRewriter parser = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, false);

    /** Refused on both paths, naming the table and the query; {@code query} is the query the refusal names. */
    private void refused(String sql, String query) {
        for (SqlRewriter rewriter : List.of(first, parser)) {
            RewritePlan.Refused r = assertInstanceOf(RewritePlan.Refused.class, rewriter.plan(sql), sql);
            assertEquals("t", r.table(), sql);
            assertTrue(r.construct().contains("reads the WITH query " + query + ", which "), r.construct());
        }
    }

    /** Fenced on both paths, with the same text. */
    private String fenced(String sql) {
        RewritePlan.Fenced lane = assertInstanceOf(RewritePlan.Fenced.class, first.plan(sql), sql);
        RewritePlan.Fenced slow = assertInstanceOf(RewritePlan.Fenced.class, parser.plan(sql), sql);
        assertNull(SkeletonFirstOracleTest.difference(lane, slow), sql);
        return lane.sql();
    }

    @Test
    void aQueryTheRepeatedWhereMayEvaluateTwiceIsRefusedOnBothPaths() {
        // the parser's path: forms the lane declines (TABLESAMPLE, a row lock, VALUES, a DELETE inside the WITH)
        refused(
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o TABLESAMPLE BERNOULLI (50)) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                "w");
        refused(
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o FOR UPDATE SKIP LOCKED) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                "w");
        refused("WITH w AS NOT MATERIALIZED (VALUES (1) LIMIT 1) DELETE FROM t WHERE id IN (SELECT * FROM w)", "w");
        refused(
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o LIMIT 1), d AS (DELETE FROM t WHERE id IN"
                        + " (SELECT id FROM w) RETURNING id) SELECT * FROM d",
                "w");
        // the lane's forms
        refused(
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o WHERE random() < 0.5) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                "w");
        refused(
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM w)",
                "w");
        refused(
                "with \"W\" (i) as not materialized (select id from o offset 2) delete from t x"
                        + " where x.id in (select i from \"W\")",
                "w");
        refused(
                "WITH w AS NOT MATERIALIZED (SELECT id FROM (SELECT id FROM o FETCH FIRST 1 ROW ONLY) q) DELETE FROM t"
                        + " WHERE EXISTS (SELECT 1 FROM w WHERE w.id = t.id)",
                "w");
        // a query without option read by a query the copies may each evaluate (inlined into it)
        refused(
                "WITH a AS (SELECT id FROM o LIMIT 1), w AS NOT MATERIALIZED (SELECT id FROM a) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                "a");
        refused(
                "WITH a AS (SELECT nextval('q') AS id), w AS (SELECT id FROM a) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                "a");
        // a MERGE DELETE's condition is evaluated twice too (the parser's path: WITH ... MERGE)
        RewritePlan merge = parser.plan("WITH w AS NOT MATERIALIZED (SELECT id FROM o LIMIT 1) MERGE INTO t USING o"
                + " ON t.id = o.id WHEN MATCHED AND t.id IN (SELECT id FROM w) THEN DELETE");
        RewritePlan.Refused r = assertInstanceOf(RewritePlan.Refused.class, merge);
        assertTrue(r.construct().startsWith(DeleteFencer.MERGE_DELETE + " reads the WITH query w"), r.construct());
    }

    @Test
    void aQueryComputedOnceOrNotReadByTheWhereIsFenced() {
        List<String> forms = List.of(
                // without option, read by the repeated WHERE: referenced twice, so computed once
                "WITH w AS (SELECT id FROM o LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM w)",
                "WITH w AS (SELECT id FROM o TABLESAMPLE SYSTEM (5)) DELETE FROM t WHERE id IN (SELECT id FROM w)",
                "WITH w AS (SELECT id FROM o FOR UPDATE SKIP LOCKED) DELETE FROM t WHERE id IN (SELECT id FROM w)",
                "WITH w AS (SELECT random() AS id) DELETE FROM t WHERE id IN (SELECT id FROM w)",
                // MATERIALIZED: computed once
                "WITH w AS MATERIALIZED (SELECT id FROM o LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM w)",
                "WITH a AS (SELECT id FROM o LIMIT 1), w AS MATERIALIZED (SELECT id FROM a) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                // NOT MATERIALIZED but repeatable, or not read by the WHERE
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o ORDER BY id LIMIT 1) DELETE FROM t"
                        + " WHERE id IN (SELECT id FROM w)",
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o LIMIT 1) DELETE FROM t WHERE id = 1",
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o LIMIT 1) DELETE FROM t",
                // observe mode adds no check: nothing is evaluated twice
                "WITH w AS NOT MATERIALIZED (SELECT id FROM t LIMIT 1) DELETE FROM o WHERE id IN (SELECT id FROM w)",
                // an UPDATE's WHERE is evaluated once
                "WITH w AS NOT MATERIALIZED (SELECT id FROM o LIMIT 1) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM w)");
        for (String sql : forms) {
            String sent = fenced(sql);
            assertTrue(sent.startsWith("WITH w AS") || sent.startsWith("WITH a AS"), sent);
        }
    }

    @Test
    void writeKeywordsSpelledAsLabelsInAWithAreNoWrites() {
        assertEquals(
                1,
                StatementClassifier.countDmlKeywords(
                        SqlLexer.tokenize("WITH w AS (SELECT 1 AS update) UPDATE t SET a = 1")));
        assertEquals(
                1,
                StatementClassifier.countDmlKeywords(SqlLexer.tokenize(
                        "WITH RECURSIVE w (x) AS MATERIALIZED (SELECT a insert, b delete FROM o), v AS NOT MATERIALIZED"
                                + " ((SELECT 1 merge)) DELETE FROM t")));
        // a statement could start after a bracket (a nested WITH's query, which PostgreSQL rejects): counted
        assertEquals(
                2,
                StatementClassifier.countDmlKeywords(
                        SqlLexer.tokenize(
                                "WITH w AS (SELECT (WITH d AS (DELETE FROM o RETURNING id) SELECT id FROM d)) UPDATE t SET a = 1")));
        // a data-modifying query of the WITH, and the write's own subqueries, count as before
        assertEquals(
                2,
                StatementClassifier.countDmlKeywords(
                        SqlLexer.tokenize("WITH w AS (DELETE FROM o RETURNING id) UPDATE t SET a = 1")));
        assertEquals(
                2,
                StatementClassifier.countDmlKeywords(
                        SqlLexer.tokenize("WITH w AS (SELECT 1 AS x) UPDATE t SET a = (SELECT 1 AS update)")));
        // the leading WITH of each statement of a text
        assertEquals(
                1,
                StatementClassifier.countDmlKeywords(
                        SqlLexer.tokenize("SELECT 1; WITH w AS (SELECT 1 AS update) UPDATE t SET a = 1")));
        assertEquals(
                2,
                StatementClassifier.countDmlKeywords(
                        SqlLexer.tokenize("SELECT 1 AS update; WITH w AS (SELECT 1) UPDATE t SET a = 1")));

        for (String sql : List.of(
                "WITH w AS (SELECT 1 AS update) UPDATE t SET a = 1",
                "WITH w AS (SELECT 1 AS delete) DELETE FROM t WHERE id = 1",
                "WITH w AS (SELECT id insert FROM o) UPDATE t SET a = 1 WHERE id IN (SELECT 1 FROM w)",
                "WITH w AS (SELECT 1 AS insert), v AS NOT MATERIALIZED (SELECT 2 merge) INSERT INTO t (id, a)"
                        + " VALUES (1, 'x')",
                "WITH w AS (SELECT 1 FROM o WHERE (SELECT 1 AS update) = 1) UPDATE t SET a = 1")) {
            String sent = fenced(sql);
            assertTrue(sent.contains("fenced-stale") || sent.contains("CAST(? AS bigint)"), sent);
        }
        // still refused: a keyword counted, with one write to find
        for (String sql : List.of(
                "WITH w AS (SELECT (update) FROM o) UPDATE t SET a = 1",
                "WITH w AS (SELECT (WITH d AS (DELETE FROM o RETURNING id) SELECT id FROM d)) UPDATE t SET a = 1",
                "WITH w AS (SELECT id insert FROM o) UPDATE t SET a = 1 WHERE id IN (SELECT insert FROM w)")) {
            assertInstanceOf(RewritePlan.Refused.class, first.plan(sql), sql);
            assertInstanceOf(RewritePlan.Refused.class, parser.plan(sql), sql);
        }
        // a data-modifying query of the WITH is fenced as before
        String sent =
                fenced("WITH w AS (DELETE FROM o RETURNING id) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM w)");
        assertTrue(sent.contains("fenced-stale"), sent);
    }

    @Test
    void aWithMemberIsReadAsWritten() {
        WithQuery q = WithQuery.read(SqlLexer.tokenize("\"W\" (a, b) AS NOT MATERIALIZED (SELECT 1, 2) SEARCH"));
        assertNotNull(q);
        assertEquals("w", q.name());
        assertEquals(WithQuery.Materialized.NEVER, q.materialized());
        assertEquals(4, q.body().size());
        assertEquals(
                WithQuery.Materialized.ALWAYS,
                WithQuery.read(SqlLexer.tokenize("w AS MATERIALIZED (SELECT 1)"))
                        .materialized());
        assertEquals(
                WithQuery.Materialized.DEFAULT,
                WithQuery.read(SqlLexer.tokenize("w AS (SELECT 1)")).materialized());
        assertNull(WithQuery.read(SqlLexer.tokenize("w (SELECT 1)")));
    }
}
