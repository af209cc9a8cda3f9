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
 * An outside review of the cold path's fast lane ({@link SkeletonFirst}) and of what it hands to the parser's path:
 * statements that read the row's own old values other than through a bare or qualified column name. Each is a
 * relative update (PostgreSQL evaluates it against the row as it is when the statement runs), so with
 * {@code fenced.relativeUpdates=refuse} it must be refused, whichever path plans it; with the lane off it must be
 * refused too (the parser's path judged them as plain writes).
 */
class SkeletonFirstAttackTest {

    private static SqlRewriter rewriter(boolean skeletonFirst) {
        return new SqlRewriter(
                FencingTargets.of(List.of(new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.REFUSE,
                Duration.ofSeconds(2),
                skeletonFirst);
    }

    /** The row as a whole (a whole-row reference), or a subquery reading the outer row's column. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "UPDATE t SET n = (to_jsonb(t)->>'n')::int + 1 WHERE id = 1",
                "UPDATE t AS x SET n = (to_jsonb(x)->>'n')::int + 1 WHERE id = 1",
                "UPDATE t SET n = (to_jsonb(t.*)->>'n')::int + 1",
                "UPDATE t SET n = length(t::text)",
                "UPDATE t SET n = f(t)",
                "UPDATE t SET n = (t).n + 1",
                "UPDATE t AS x SET n = (x).n + 1",
                "UPDATE t SET n = (t.*).n + 1",
                "UPDATE t SET n = (SELECT n + 1)",
                "UPDATE t SET n = (SELECT t.n + 1)",
                "UPDATE t SET (a, n) = (SELECT a, n + 1)",
                "UPDATE t SET n = (SELECT max(s.v) + t.n FROM s)",
                "UPDATE t SET n = 1 + (SELECT n)",
            })
    void aRelativeUpdateThroughTheWholeRowOrASubqueryIsRefused(String sql) {
        for (boolean skeletonFirst : new boolean[] {true, false}) {
            RewritePlan plan = rewriter(skeletonFirst).plan(sql);
            assertTrue(
                    plan instanceof RewritePlan.Refused r && r.construct().contains("relative update"),
                    () -> (skeletonFirst ? "lane on: " : "lane off: ") + sql + " -> " + plan);
        }
    }

    /** Still plain writes: the row's other columns, another table's row, a function of the same name. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "UPDATE t SET n = a + 1 WHERE id = 1",
                "UPDATE t SET n = (SELECT max(s.v) FROM s)",
                "UPDATE t SET n = to_jsonb(?::text)::text::int",
            })
    void plainWritesStayPlain(String sql) {
        for (boolean skeletonFirst : new boolean[] {true, false}) {
            RewritePlan plan = rewriter(skeletonFirst).plan(sql);
            assertTrue(plan instanceof RewritePlan.Fenced f && !f.relativeUpdate(), () -> sql + " -> " + plan);
            assertEquals(List.of("t"), ((RewritePlan.Fenced) plan).tables());
        }
    }
    /** Representative forms of SkeletonFirstAttackIT (run there against PostgreSQL): planned by the lane itself. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "UPDATE t AS x SET v = 'x' WHERE x.id = 2",
                "UPDATE t SET (v, n) = ROW('r', 9) WHERE id = 2",
                "UPDATE t SET v = 'c' /* nested /* ? */ ' */ WHERE id = 1",
                "UPDATE t SET v = $q$it's ?$q$ WHERE id = 1",
                "UPDATE t SET v = 'con'\n'tinued' WHERE id = 1",
                "UPDATE t SET v = 'x' WHERE j ?| array['k']",
                "UPDATE t SET v = {fn ucase('esc')} WHERE id = 1",
                ";UPDATE t SET v = 'x' WHERE id = 1",
                "UPDATE t AS x SET n = x.n * 2",
                "INSERT INTO t (id, v, n) VALUES (10, 'ten', 10), (11, 'eleven', DEFAULT) RETURNING *",
                "INSERT INTO t (id, v) OVERRIDING USER VALUE VALUES (13, 'o')",
                "INSERT INTO t (id, v) VALUES (15, $$d ' ?$$) -- trailing ? comment",
            })
    void theAttackedFormsArePlannedByTheLane(String sql) {
        SqlRewriter lane = new SqlRewriter(
                FencingTargets.of(List.of(new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(2),
                true);
        assertTrue(lane.plan(sql) instanceof RewritePlan.Fenced, sql);
        assertEquals(1, lane.skeletonFirstPlans(), sql);
    }
}
