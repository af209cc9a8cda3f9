package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.metrics.Tracker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pathological SQL is refused within the parse bound instead of tying up the caller for minutes. */
class BoundedParserTest {

    private final SqlRewriter rewriter = new SqlRewriter(
            FencingTargets.of(
                    List.of(new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE))),
            RelativeUpdatePolicy.ALLOW,
            Duration.ofMillis(300));

    @Test
    void deeplyNestedStatementsAreRefusedAtOnce() {
        String sql = "UPDATE totals SET a = " + "(".repeat(40) + "1" + ")".repeat(40);
        RewritePlan plan = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> rewriter.plan(sql));
        assertTrue(plan instanceof RewritePlan.Refused r && r.construct().contains("nesting deeper"), plan::toString);
    }

    @Test
    void aParseThatRunsPastTheDeadlineIsRefused() {
        // Many alternatives at each level make JSqlParser backtrack; whatever it does, the answer comes
        // back within the bound and is a refusal or a correct rewrite, never a hang.
        StringBuilder sql = new StringBuilder("UPDATE totals SET a = 1 WHERE ");
        for (int i = 0; i < 400; i++) {
            sql.append(i == 0 ? "" : " OR ")
                    .append("(x")
                    .append(i)
                    .append(" IN (SELECT y FROM z WHERE (w = ")
                    .append(i)
                    .append(")))");
        }
        RewritePlan plan = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> rewriter.plan(sql.toString()));
        assertTrue(plan instanceof RewritePlan.Protected, plan::toString);
    }

    @Test
    void aRefusalForWantOfTimeIsNotCached() {
        SqlRewriter hurried = new SqlRewriter(
                FencingTargets.of(
                        List.of(new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofMillis(5),
                false); // the parser's path: the skeleton-first lane plans these subqueries without parsing
        RewriteCache cache = new RewriteCache(hurried, 16, new Tracker());
        // 11 nested subqueries took JSqlParser 5.3 0.4-0.6 s; 5.4 parses them in milliseconds. 2,000
        // alternatives of subqueries take it ~300 ms, well over 50x the deadline. (A 1 ns deadline on a quick
        // statement was a race with the watchdog thread, and lost now and then.)
        StringBuilder sql = new StringBuilder("UPDATE totals SET a = 1 WHERE ");
        for (int i = 0; i < 2000; i++) {
            sql.append(i == 0 ? "" : " OR ")
                    .append("(x")
                    .append(i)
                    .append(" IN (SELECT y FROM z WHERE (w = ")
                    .append(i)
                    .append(")))");
        }
        RewritePlan plan = cache.plan(sql.toString());
        assertTrue(
                plan instanceof RewritePlan.Refused r && r.construct().contains("fenced.parseTimeout"), plan::toString);
        assertTrue(cache.size() == 0, "a deadline refusal is tried again next time");
        RewriteCache normal = new RewriteCache(rewriter, 16, new Tracker());
        normal.plan("UPDATE totals SET a = 1");
        assertTrue(normal.size() == 1);
    }
}
