package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The adversary's DELETE texts (DeleteLaneAttackIT's spellings) planned by a rewriter with the DELETE lane
 * ({@link SkeletonFirst}) and one without it: where both read a text they must plan it alike
 * ({@link SkeletonFirstOracleTest#difference}), and a text the lane plans must carry the guard.
 */
class DeleteLanePlanningTest {

    static final List<String> TEXTS = List.of(
            "DELETE FROM t WHERE id = 1",
            "DELETE FROM t",
            "DELETE FROM t RETURNING *",
            "DELETE FROM t x",
            "DELETE FROM t AS \"where\" WHERE \"where\".\"where\" = 1",
            "DELETE FROM t AS \"returning\" WHERE \"returning\".id = 2 RETURNING \"returning\".\"returning\"",
            "DELETE FROM t \"WHERE\" WHERE \"WHERE\".id = 1",
            "DELETE FROM t AS fence WHERE fence.id = 1",
            "DELETE FROM t fence WHERE fence.fence = 50 AND fence.id = 2",
            "DELETE FROM t AS nk WHERE nk.id = 1",
            "DELETE FROM nk AS t WHERE t.id = 1",
            "DELETE FROM t AS t WHERE t.id = 1",
            "DELETE FROM public.t WHERE t.id = 1",
            "DELETE FROM \"public\".\"t\" WHERE \"t\".id = 1",
            "DELETE FROM PUBLIC.T WHERE T.ID = 1",
            "DELETE FROM U&\"t\" WHERE id = 1",
            "DELETE FROM U&\"\\0074\" WHERE id = 1",
            "DELETE FROM t AS U&\"x\" WHERE U&\"x\".id = 1",
            "DELETE FROM t WHERE U&\"i\\0064\" = 1",
            "DELETE FROM t WHERE t.returning = 'r1'",
            "DELETE FROM t WHERE t.\"returning\" = 'r1' RETURNING id AS returning",
            "DELETE FROM t WHERE id = 1 RETURNING id AS \"where\", (SELECT count(*) FROM t) AS n",
            "DELETE FROM t WHERE v = 'a'/* RETURNING */ RETURNING id",
            "DELETE FROM t WHERE v = $$ RETURNING $$ OR id = 2",
            "DELETE FROM t WHERE v = $r$ ' RETURNING $$ $r$ OR id = 2 RETURNING $x$)$x$",
            "DELETE FROM t WHERE v = E'\\' RETURNING ' OR id = 2",
            "DELETE FROM t WHERE v = 'x' -- RETURNING\n OR id = 3",
            "DELETE FROM t WHERE id = 1 /* a /* b */ OR true */ RETURNING id",
            "DELETE FROM t WHERE id = 1 --",
            "DELETE--\nFROM t--\nWHERE--\nid = 1",
            "DELETE FROM t/**/WHERE/**/id=1/**/RETURNING/**/id",
            "DELETE FROM t WHERE id =-- x\n1",
            "DELETE FROM t WHERE id =/**/1 RETURNING id",
            "DELETE FROM t WHERE n <-1",
            "DELETE FROM t WHERE j ?? 'k'",
            "DELETE FROM t WHERE j ?| array['k']",
            "DELETE FROM t WHERE id = ? OR v = ?",
            "DELETE FROM t x WHERE x.v = ? /* ? */ OR x.id = ? RETURNING ?",
            "DELETE FROM t WHERE v = {fn lcase('ONE')}",
            "DELETE FROM t WHERE {fn rand()} < 0.5",
            "DELETE FROM t WHERE random() < 2",
            "DELETE FROM t WHERE \"random\"() < 2",
            "DELETE FROM t WHERE U&\"r\\0061ndom\"() < 2",
            "DELETE FROM t WHERE t.coin",
            "DELETE FROM t WHERE id IN (SELECT id FROM t FOR /*x*/ UPDATE SKIP LOCKED)",
            "DELETE FROM t WHERE id = 1; DELETE FROM t WHERE id = 2",
            "DELETE FROM t WHERE id = 1;;",
            "DELETE FROM t WHERE v = ';' OR id = 1; DELETE FROM nk",
            "DELETE FROM t WHERE id = 1. RETURNING id",
            "DELETE FROM t WHERE (array[1, 2])[1] = id",
            "DELETE FROM t x WHERE x = x AND x.id = 3",
            "DELETE FROM t WHERE " + "(".repeat(300) + "id = 1" + ")".repeat(300));

    @Test
    void theLanePlansTheAdversarysDeletesAsTheParsersPathDoes() {
        List<String> columns = List.of("id", "v", "n", "j", "where", "returning", "fence");
        FencingTargets targets = FencingTargets.modelled(
                List.of(
                        new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                        new ProtectedTable(TableName.parse("nk"), "fence", FencingMode.ENFORCE)),
                Map.of(),
                Set.of("random", "nextval", "coin"),
                Map.of(
                        TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                        TableName.parse("nk"), new TableShape(List.of("id", "v", "fence"), List.of(), null)),
                TableName.parse("fenced_tombstone"));
        SqlRewriter first = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(2), true);
        SqlRewriter parser = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(2), false);
        List<String> wrong = new ArrayList<>();
        int lane = 0;
        for (String sql : TEXTS) {
            for (boolean nullToken : new boolean[] {false, true}) {
                long before = first.skeletonFirstPlans();
                RewritePlan fast = nullToken ? first.planForNullToken(sql) : first.plan(sql);
                boolean byLane = first.skeletonFirstPlans() > before;
                lane += byLane && !nullToken ? 1 : 0;
                RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                String difference = SkeletonFirstOracleTest.difference(fast, slow);
                if (difference != null) {
                    wrong.add((nullToken ? "(NULL token) " : "") + sql + "\n    " + difference);
                }
                if (byLane && !(fast instanceof RewritePlan.Fenced f && f.sql().contains("fenced-stale"))) {
                    wrong.add(sql + "\n    planned by the lane without the guard: " + fast);
                }
            }
        }
        System.out.println("DeleteLanePlanningTest: " + TEXTS.size() + " texts, " + lane + " planned by the lane, "
                + wrong.size() + " differences");
        assertTrue(wrong.isEmpty(), wrong.size() + " differences:\n" + String.join("\n", wrong));
    }
}
