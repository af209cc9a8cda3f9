package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which statements with subqueries the skeleton-first lane plans ({@link ReadOnlySubqueries}) and which it leaves to
 * the parser's path; {@link SkeletonFirstOracleTest} shows the plans it makes are the parser's.
 */
class ReadOnlySubqueriesTest {

    private static final FencingTargets TARGETS = FencingTargets.of(List.of(
            new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
            new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE)));

    /** Whether the lane planned {@code sql} (rather than declining it to the parser's path). */
    private static boolean lanePlans(String sql) {
        SqlRewriter rewriter = new SqlRewriter(TARGETS, RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(2), true);
        RewritePlan plan = rewriter.plan(sql);
        return rewriter.skeletonFirstPlans() == 1 && plan instanceof RewritePlan.Fenced;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "UPDATE t SET v = 'in' WHERE id IN (SELECT id FROM s WHERE n > 20)",
                "UPDATE t SET v = 'ex' WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id AND s.v = t.v)",
                "UPDATE t SET v = (SELECT max(v) FROM s) WHERE id = 1",
                "UPDATE t SET n = (SELECT count(*) FROM s WHERE s.id = t.id) WHERE id > 1",
                "UPDATE t SET v = 'k' WHERE id = ANY (SELECT id FROM k ORDER BY id OFFSET 1 ROWS FETCH NEXT 1 ROWS ONLY)",
                "UPDATE t SET v = 'q' WHERE id IN (SELECT \"Id\" FROM \"S\" /* ? ' */ WHERE v <> ?) RETURNING id, v",
                "UPDATE t SET v = 'nest' WHERE id IN (SELECT id FROM s WHERE id IN (SELECT id FROM k)) -- c ?\n",
                "UPDATE t SET n = n + (SELECT 1) WHERE id = 2",
                "UPDATE t SET v = 'in' WHERE id IN (SELECT id FROM s LIMIT 1)",
                "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > 20)",
                "DELETE FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id) RETURNING id",
                "DELETE FROM t x WHERE x.n = (SELECT min(n) FROM k)",
                "DELETE FROM t WHERE id IN (SELECT id FROM k ORDER BY id LIMIT 1)",
                "DELETE FROM t WHERE id = ANY (SELECT id FROM s ORDER BY n OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY)",
                // a plain FROM or USING list (PlainFromList)
                "UPDATE t SET v = 1 FROM s WHERE s.id = (SELECT 1)",
                "DELETE FROM t USING s WHERE t.id IN (SELECT id FROM s)"
            })
    void theLanePlans(String sql) {
        assertTrue(lanePlans(sql), sql);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // the parser's path judges these (or the lane cannot be sure it judges them alike)
                "UPDATE t SET v = 1 WHERE id IN (WITH w AS (SELECT 1 AS id) SELECT id FROM w)",
                "UPDATE t SET v = 1 WHERE id IN (SELECT id FROM s FOR UPDATE)",
                "UPDATE t SET v = 1 WHERE id IN (SELECT id FROM ONLY s)",
                "UPDATE t SET v = 1 WHERE id IN (SELECT id FROM s, LATERAL (SELECT 1) l)",
                "UPDATE t SET v = 1 WHERE id IN (SELECT id FROM s TABLESAMPLE SYSTEM (10))",
                "UPDATE t SET v = 1 WHERE id IN (VALUES (1))",
                "UPDATE t SET v = 1 WHERE id IN ((SELECT 1) UNION (SELECT 2)) AND id IN (VALUES (1))",
                "UPDATE t SET n = (SELECT x.n FROM s AS x) WHERE id = 1",
                "DELETE FROM t WHERE id IN (SELECT id FROM s LIMIT 1)",
                "DELETE FROM t WHERE id IN (SELECT id FROM s FOR UPDATE SKIP LOCKED)",
                "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE random() < 0.5)"
            })
    void theLaneDeclines(String sql) {
        assertEquals(false, lanePlans(sql), sql);
    }
}
