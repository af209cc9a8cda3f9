package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The attacker's texts against the widened lane (ON CONFLICT, {@link ConflictClause}; read-only subqueries,
 * {@link ReadOnlySubqueries}) planned by a rewriter with the lane and one without it: where both plan a text they
 * must plan it alike ({@link SkeletonFirstOracleTest#difference}). And the row read whole in attribute notation
 * ({@code x.f} is {@code f(x)}): a relative update on every path, the lane's, the parser's and the fallback's.
 */
class LaneAttackPlanningTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    static FencingTargets targets() {
        List<String> columns = List.of("id", "v", "n", "last_token");
        return FencingTargets.modelled(
                List.of(
                        new ProtectedTable(TableName.parse("t"), "last_token", FencingMode.ENFORCE),
                        new ProtectedTable(TableName.parse("k"), "last_token", FencingMode.ENFORCE)),
                Map.of(),
                Set.of("random", "nextval", "clock_timestamp", "setseed", "gen_random_uuid"),
                Map.of(
                        TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                        TableName.parse("k"), new TableShape(columns, List.of("id"), "k")),
                TableName.parse("fenced_tombstone"));
    }

    /** Upserts, UPDATEs and DELETEs with subqueries, spelled to make the lane read them otherwise than the parser. */
    static final List<String> TEXTS = List.of(
            "UPDATE t SET n = U&\"n\" + 1 WHERE id = 1",
            "UPDATE t SET n = (SELECT U&\"n\" + 1) WHERE id = 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = U&\"n\" + 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = t.n + 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n + 1",
            "INSERT INTO t AS \"Excluded\" (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n + 1",
            "INSERT INTO t AS \"Excluded\" (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = \"Excluded\".n + 1",
            "INSERT INTO t AS x (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = (x).n + 1",
            "INSERT INTO t AS x (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET v = x::text",
            "INSERT INTO t AS x (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET v = row(x.*)::text",
            "INSERT INTO t AS x (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = length(x.v), v = 'a'",
            "INSERT INTO t AS x (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = x.n OPERATOR(pg_catalog.+) 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n OPERATOR(pg_catalog.+) 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n WHERE excluded.n > n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET (n, v) = (excluded.n, v)",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET (n, v) = ROW(excluded.n, v)",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n, last_token = 5",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n, \"last_token\" = 5",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n, U&\"last_token\" = 5",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n, U&\"\\006Cast_token\" = 5",
            "UPDATE t SET n = 1, U&\"\\006Cast_token\" = 5 WHERE id = 1",
            "INSERT INTO t (id, U&\"\\006Cast_token\") VALUES (1, 5)",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = U&\"\\006E\" + 1",
            "UPDATE t SET n = U&\"\\006E\" + 1 WHERE id = 1",
            "UPDATE t SET n = (SELECT U&\"\\006E\" + 1) WHERE id = 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n RETURNING excluded.n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) WHERE n > 0 DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT ((id)) DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n WHERE t.last_token < 100",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.last_token",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = t.last_token",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = 1 ON CONFLICT (id) DO NOTHING",
            "INSERT INTO t (id, n) VALUES (1, 1), (2, 2) ON CONFLICT (id) DO UPDATE SET n = excluded.n RETURNING t.*",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = t.excluded",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = $$x$$::text::int",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = int8 '5'",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n::int8",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = CAST(n AS int8)",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = coalesce(n, 0)",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = -n",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = (n)",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = ARRAY[n][1]",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = public.t.n",
            "INSERT INTO public.t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = t.n + 1",
            "INSERT INTO public.t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = public.t.n + 1",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n /* ? */ RETURNING *",
            "INSERT INTO t (id, n) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET n = ? WHERE t.n <> ? RETURNING ?",
            "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n WHERE EXISTS (SELECT 1)",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM s FOR KEY SHARE)",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM s FOR/**/SHARE)",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM s FOR NO KEY UPDATE)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY (SELECT 1) LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY 'a'::text LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT DISTINCT ON (v) id FROM s ORDER BY v)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WINDOW w AS (ORDER BY id) LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > s.random)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > (s).random)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > \"random\"())",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > pg_catalog.random())",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n::float8 > random ())",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE clock_timestamp() > now())",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE gen_random_uuid() IS NOT NULL)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > ALL (SELECT n FROM s LIMIT 1))",
            "DELETE FROM t WHERE id IN (SELECT id FROM s TABLESAMPLE BERNOULLI (50) REPEATABLE (1))",
            "DELETE FROM t WHERE id IN (SELECT unnest(ARRAY[1,2]) FETCH FIRST 1 ROW ONLY)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY id FETCH FIRST 1 ROW WITH TIES)",
            "DELETE FROM t WHERE id = ANY (ARRAY(SELECT id FROM s LIMIT 1))",
            "DELETE FROM t WHERE id = ANY (ARRAY(SELECT id FROM s ORDER BY id LIMIT 1))",
            "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE n > 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM k)",
            "DELETE FROM t WHERE id IN (SELECT id FROM ONLY s)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s, LATERAL (SELECT 1) q)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s CROSS JOIN LATERAL generate_series(1, 2))",
            "DELETE FROM t WHERE id IN (SELECT id FROM s JOIN k USING (id))",
            "DELETE FROM t WHERE id IN (SELECT id FROM s JOIN k ON k.id = s.id)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE v = $q$ LIMIT 1 $q$)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE v = 'FOR UPDATE')",
            "DELETE FROM t WHERE id IN (SELECT id FROM s /* FOR UPDATE */)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > 0 UNION SELECT id FROM k LIMIT 1)",
            "DELETE FROM t WHERE id IN ((SELECT id FROM s) LIMIT 1)",
            "DELETE FROM t WHERE id IN ((SELECT id FROM s LIMIT 1))",
            "UPDATE t SET v = 'x' WHERE id IN ((SELECT id FROM s) UNION (SELECT id FROM k))",
            "UPDATE t SET v = 'x' WHERE id IN ((SELECT id FROM s) ORDER BY 1)",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM s) AND id IN (SELECT id FROM k FOR UPDATE)",
            "UPDATE t SET n = (SELECT n FROM s WHERE s.id = t.id) WHERE id = 1",
            "UPDATE t SET n = (SELECT s.n FROM s WHERE s.id = t.id) WHERE id = 1",
            "UPDATE t SET v = (SELECT s.v FROM s WHERE s.n = t.n) WHERE id = 1",
            "UPDATE t SET v = (SELECT max(v) FROM s) || v WHERE id = 1",
            "UPDATE t SET v = (SELECT t.v) WHERE id = 1",
            "UPDATE t SET v = (SELECT x.v FROM t x WHERE x.id = 2) WHERE id = 1",
            "UPDATE t SET v = (SELECT t) WHERE id = 1",
            "UPDATE t SET v = (SELECT (t).v) WHERE id = 1",
            "UPDATE t SET v = (SELECT row(t.*)::text) WHERE id = 1",
            "UPDATE t SET v = (SELECT \"T\".v FROM t AS \"T\" WHERE \"T\".id = 2) WHERE id = 1",
            "UPDATE t AS x SET v = (SELECT x.v) WHERE id = 1",
            "UPDATE t AS x SET v = (SELECT X.v) WHERE id = 1",
            "UPDATE t AS x SET v = (SELECT \"x\".\"v\") WHERE id = 1",
            "UPDATE t SET v = (SELECT U&\"v\") WHERE id = 1",
            "UPDATE t SET v = (SELECT public.t.v) WHERE id = 1",
            "UPDATE t SET (v, n) = (SELECT v, n FROM s WHERE s.id = t.id) WHERE id = 1",
            "UPDATE t SET (v, n) = (SELECT s.v, s.n FROM s WHERE s.id = t.id LIMIT 1) WHERE id = 1",
            "UPDATE t SET v = (SELECT string_agg(v, ',') FROM s) WHERE id = 1",
            "UPDATE t SET v = (SELECT 'x' FROM s WHERE s.v = v LIMIT 1) WHERE id = 1",
            "UPDATE t SET v = (SELECT 'x' WHERE v IS NULL) WHERE id = 1",
            "UPDATE t SET last_token = (SELECT 1) WHERE id = 1",
            "UPDATE t SET v = 'x', last_token = (SELECT 1) WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM s) RETURNING (SELECT max(n) FROM k)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s) RETURNING (SELECT max(n) FROM k)",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM s WHERE s.v IN (SELECT v FROM s LIMIT 1))",
            "UPDATE t SET v = (SELECT v FROM s ORDER BY random() LIMIT 1) WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE (SELECT 1) = 1",
            "UPDATE t SET v = 'x' WHERE id = (SELECT nextval('q'))",
            "DELETE FROM t WHERE id = (SELECT nextval('q'))",
            "DELETE FROM t WHERE (SELECT count(*) FROM s) > 0",
            "DELETE FROM t WHERE id IN (SELECT id FROM s GROUP BY id HAVING count(*) > 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE v LIKE 'x' ESCAPE '!')",
            "DELETE FROM t WHERE EXISTS (SELECT FROM s WHERE s.id = t.id)",
            "DELETE FROM t x WHERE EXISTS (SELECT FROM s WHERE s.id = x.id) RETURNING x.*",
            "DELETE FROM t WHERE id IN (SELECT id FROM s) AND id IN (SELECT id FROM s OFFSET 0)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY id) AND id IN (SELECT id FROM s LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY id OFFSET 0) AND id IN (SELECT id FROM s) LIMIT 1",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE id IN (SELECT id FROM s ORDER BY id) LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE (id) IN (SELECT id ORDER BY id) LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY id LIMIT (SELECT 1 LIMIT 1))",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE id = ANY (SELECT id FROM s ORDER BY id) LIMIT 1)");

    @Test
    void theLanePlansTheAttackersTextsAsTheParsersPath() {
        List<String> divergences = new ArrayList<>();
        int planned = 0;
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            SqlRewriter first = new SqlRewriter(targets(), policy, TIMEOUT, true);
            SqlRewriter parser = new SqlRewriter(targets(), policy, TIMEOUT, false);
            for (String sql : TEXTS) {
                long before = first.skeletonFirstPlans();
                String difference = SkeletonFirstOracleTest.difference(first.plan(sql), parser.plan(sql));
                planned += first.skeletonFirstPlans() > before ? 1 : 0;
                if (difference != null) {
                    divergences.add(policy + " " + sql + "\n    " + difference);
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "LaneAttackPlanningTest: %d texts under 2 policies, %d planned by the lane, %d divergences%n",
                TEXTS.size(),
                planned,
                divergences.size());
        assertTrue(divergences.isEmpty(), String.join("\n", divergences));
    }

    /**
     * {@code x.bumped}, where the table has no column {@code bumped}, is PostgreSQL's attribute notation for
     * {@code bumped(x)}: the function reads the whole existing row, so the value reads the column it assigns. Once
     * judged an ordinary column of the row (not assigned, not relative) by the lane, the parser's path and the
     * fallback alike; a stale holder's relative update went through under fenced.relativeUpdates=refuse.
     */
    static final List<String> ATTRIBUTE_CALLS = List.of(
            "INSERT INTO t AS x (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = x.bumped",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = t.bumped + excluded.n",
            "UPDATE t SET n = t.bumped WHERE id = 1",
            "UPDATE t AS x SET v = 'a', n = x.bumped WHERE id = 1",
            "UPDATE t SET n = public.t.bumped WHERE id = 1",
            "UPDATE t AS x SET n = (SELECT x.bumped) WHERE id IN (SELECT id FROM s)",
            "UPDATE t SET n = (SELECT max(s.n) FROM s WHERE s.n < t.bumped) WHERE id = 1",
            "UPDATE t SET n = - - t.bumped WHERE id = 1");

    @Test
    void attributeNotationOnTheRowIsARelativeUpdateOnEveryPath() {
        List<String> wrong = new ArrayList<>();
        for (boolean lane : new boolean[] {true, false}) {
            SqlRewriter refuse = new SqlRewriter(targets(), RelativeUpdatePolicy.REFUSE, TIMEOUT, lane);
            SqlRewriter allow = new SqlRewriter(targets(), RelativeUpdatePolicy.ALLOW, TIMEOUT, lane);
            for (String sql : ATTRIBUTE_CALLS) {
                RewritePlan refused = refuse.plan(sql);
                RewritePlan allowed = allow.plan(sql);
                boolean flagged = refused instanceof RewritePlan.Refused r
                        && r.construct().contains("relative update");
                boolean noted = allowed instanceof RewritePlan.Fenced f && f.relativeUpdate();
                if (!flagged || !noted) {
                    wrong.add((lane ? "lane on:  " : "lane off: ") + sql + "\n    refuse: " + refused + "\n    allow: "
                            + (allowed instanceof RewritePlan.Fenced f ? "relative=" + f.relativeUpdate() : allowed));
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "LaneAttackPlanningTest: %d attribute-notation texts x 2 rewriters, %d not judged relative%n",
                ATTRIBUTE_CALLS.size(),
                wrong.size());
        assertTrue(wrong.isEmpty(), wrong.size() + " not judged relative:\n" + String.join("\n", wrong));
    }

    /**
     * An upsert JSqlParser cannot read whose DO UPDATE calls a function on the row: the fallback by position declines
     * it as the lane does, so the parser's refusal stands (fail closed), never an unflagged plan.
     */
    @Test
    void anUnreadableUpsertCallingAFunctionOnTheRowIsRefused() {
        String sql = "INSERT INTO t (id, n) VALUES (1, - - 5) ON CONFLICT (id) DO UPDATE SET n = t.bumped";
        for (boolean lane : new boolean[] {true, false}) {
            RewritePlan plan = new SqlRewriter(targets(), RelativeUpdatePolicy.ALLOW, TIMEOUT, lane).plan(sql);
            assertTrue(plan instanceof RewritePlan.Refused, plan.toString());
        }
    }

    /** A column of the row after its name is no call: {@code t.v} reads v, not the whole row. */
    @Test
    void aColumnOfTheRowIsNoCall() {
        SqlRewriter refuse = new SqlRewriter(targets(), RelativeUpdatePolicy.REFUSE, TIMEOUT, true);
        for (String sql : List.of(
                "UPDATE t SET n = length(t.v) WHERE id = 1",
                "INSERT INTO t AS x (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = x.id + excluded.n",
                "UPDATE t SET n = (SELECT max(s.n) FROM s WHERE s.id = t.id) WHERE id = 1")) {
            assertTrue(refuse.plan(sql) instanceof RewritePlan.Fenced, sql);
        }
    }
}
