package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.RelativeUpdatePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * attack42: this stop's changes (WITH judgement and write-keyword labels in a WITH, parenthesised INSERT sources,
 * the cheaper position-first checks) attacked with texts planned by the lane and by the parser's path alike.
 */
class Attack42PlanningTest {

    static final List<String> ATTACKS = List.of(
            // (1) a WITH's select queries: write-keyword labels, and writes that must stay writes
            "WITH a AS (UPDATE t SET a = 1 RETURNING id) SELECT * FROM a",
            "WITH a AS ((UPDATE t SET a = 1 RETURNING id)) SELECT * FROM a",
            "WITH a AS (SELECT 1 AS update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update) SELECT * FROM a",
            "WITH a AS (SELECT 1 update) DELETE FROM t WHERE id IN (SELECT update FROM a)",
            "WITH a AS (SELECT id AS delete FROM p) DELETE FROM t WHERE id IN (SELECT delete FROM a)",
            "WITH a AS (SELECT 1 AS x), b AS (UPDATE t SET a = 2 RETURNING id) SELECT * FROM b",
            "WITH a AS (SELECT 1 AS insert), b AS (DELETE FROM t WHERE id = 1 RETURNING id) SELECT * FROM b",
            "WITH a AS (SELECT 1 AS insert) INSERT INTO t (id, a) SELECT 9, insert FROM a",
            "WITH a AS (SELECT 1 AS merge) INSERT INTO t (id, a) SELECT 9, merge FROM a",
            "WITH RECURSIVE a (update) AS (SELECT 1 UNION ALL SELECT update + 1 FROM a WHERE update < 3)"
                    + " UPDATE t SET a = 1 WHERE id IN (SELECT update FROM a)",
            "WITH a AS MATERIALIZED (SELECT 1 AS update) UPDATE t SET a = 1 WHERE id IN (SELECT update FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT 1 AS delete) DELETE FROM t WHERE id IN (SELECT delete FROM a)",
            "WITH a AS (SELECT * FROM (WITH b AS (UPDATE t SET a = 1 RETURNING id) SELECT id FROM b) s) SELECT 1",
            "WITH a AS (SELECT /* c */ 1 AS /* c */ update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT $$x$$ AS update, E'\\'' AS delete) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS \"update\") UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT update(1)) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT update(1)) DELETE FROM t WHERE id IN (SELECT 1 FROM a)",
            "WITH a AS (SELECT (SELECT 1) update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update); UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update) SELECT 1; UPDATE t SET a = 1 WHERE id = 1",
            "SELECT 1; WITH a AS (SELECT 1 AS update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update) UPDATE t SET a = 1 WHERE id = 1; UPDATE t SET a = 2",
            "WITH a AS (TABLE p), b AS (SELECT * FROM a) UPDATE t SET a = b.a FROM b WHERE b.id = t.id",
            "WITH a AS (VALUES (1)) DELETE FROM t WHERE id IN (TABLE a)",
            "WITH a AS (SELECT id FROM p), b AS (DELETE FROM t WHERE id IN (SELECT id FROM a) RETURNING id)"
                    + " SELECT * FROM b",
            "WITH a AS (SELECT id FROM p ORDER BY random() LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1), b AS (SELECT id FROM a)"
                    + " DELETE FROM t WHERE id IN (SELECT id FROM b)",
            "WITH a AS (SELECT id FROM p LIMIT 1), b AS NOT MATERIALIZED (SELECT id FROM a)"
                    + " DELETE FROM t WHERE id IN (SELECT id FROM b)",
            "WITH \"A\" AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM \"A\")",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM \"a\")",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM public.a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p FOR UPDATE) DELETE FROM t WHERE id IN (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p TABLESAMPLE bernoulli (50)) DELETE FROM t WHERE id IN"
                    + " (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT nextval('s') AS id) DELETE FROM t WHERE id IN (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t USING a WHERE t.id = a.id",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE EXISTS"
                    + " (SELECT 1 FROM a WHERE a.id = t.id)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) MERGE INTO t USING p ON p.id = t.id"
                    + " WHEN MATCHED AND t.id IN (SELECT id FROM a) THEN DELETE",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM a) RETURNING"
                    + " (SELECT count(*) FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (WITH a AS (SELECT 1) SELECT * FROM a)",
            "WITH a AS (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM a) OR id IN (SELECT id FROM a)",
            "WITH a AS (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (WITH b AS NOT MATERIALIZED (SELECT id FROM a) SELECT id FROM b)",
            "WITH a AS (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (WITH b AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) SELECT id FROM b)",
            "WITH x AS (SELECT id FROM p LIMIT 1) SELECT 1 FROM (WITH a AS (DELETE FROM t RETURNING id) SELECT 1) s",
            // (2) parenthesised INSERT sources
            "INSERT INTO t (id, a) (SELECT id, a FROM p)",
            "INSERT INTO t (id, a) ((SELECT id, a FROM p))",
            "INSERT INTO t (id, a) ((SELECT id, a FROM p) UNION (SELECT 9, 9))",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) UNION (SELECT 9, 9)",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ORDER BY 1 LIMIT 2",
            "INSERT INTO t (id, a) (SELECT id, a FROM p ORDER BY 1) LIMIT 2",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) FOR UPDATE",
            "INSERT INTO t (id, a) (SELECT id, a FROM p FOR UPDATE)",
            "INSERT INTO t (id, a) (TABLE p)",
            "INSERT INTO t (id, a) (VALUES (1, 2), (3, 4))",
            "INSERT INTO t (id, a) (VALUES (1, 2), (3, 4)) ORDER BY 1",
            "INSERT INTO t (id, a) (VALUES (1, 2)) LIMIT 1",
            "INSERT INTO t (id, a) ((VALUES (1, 2)) LIMIT 1)",
            "INSERT INTO t (id, a) (SELECT DISTINCT ON (id) id, a FROM p ORDER BY id, a)",
            "INSERT INTO t (id, a) (SELECT id, max(a) FROM p GROUP BY id HAVING count(*) > 0)",
            "INSERT INTO t (id, a) (SELECT id, row_number() OVER (ORDER BY id) FROM p)",
            "INSERT INTO t (id, a) (SELECT id, sum(a) OVER w FROM p WINDOW w AS (ORDER BY id))",
            "INSERT INTO t (SELECT * FROM t)",
            "INSERT INTO t (id, a, b, n, fence) (SELECT id, a, b, n, fence FROM t)",
            "INSERT INTO t (id, a) (SELECT id, fence FROM t)",
            "INSERT INTO t (id, a) (SELECT id, (SELECT max(fence) FROM t) FROM p)",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ON CONFLICT (id) DO UPDATE SET a = excluded.fence",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ON CONFLICT (id) DO UPDATE SET fence = excluded.fence",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ON CONFLICT (id) DO UPDATE SET a = 1 RETURNING fence",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) RETURNING *",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) AS s",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) s",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) LIMIT 1 UNION SELECT 1, 2",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) OFFSET 1 ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) FETCH FIRST 1 ROW ONLY",
            "INSERT INTO t (id, a) (WITH w AS (SELECT 1) SELECT id, a FROM p)",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ORDER BY (SELECT 1) UNION SELECT 1, 2",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ORDER BY 1 OFFSET 1 ROWS FETCH NEXT 1 ROWS WITH TIES",
            "INSERT INTO t (id, a) (SELECT id, a FROM p WHERE id IN (SELECT id FROM t))",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ORDER BY (SELECT max(fence) FROM t)",
            "INSERT INTO t (id, a) (SELECT 1, 2) FOR UPDATE OF p",
            "INSERT INTO t (id, a) (SELECT id, a INTO x FROM p)",
            "INSERT INTO t (id, a) ( SELECT id, a FROM p ) ORDER BY 1",
            "INSERT INTO t (id, a) (SELECT '5', '6')",
            "INSERT INTO t (id, a) (SELECT '5', '6') LIMIT 1",
            "INSERT INTO t (id, a) (VALUES ('5', '6'))",
            "INSERT INTO t (id, a) ((SELECT 1, 2) ORDER BY 1) UNION SELECT 3, 4",
            "INSERT INTO t (id, a) (SELECT 1, 2 UNION SELECT 3, 4) ORDER BY 1",
            "INSERT INTO t (id, a) (SELECT 1, 2) UNION ALL (SELECT 3, 4) ORDER BY 1",
            // (3) Unicode case folding and odd whitespace
            "DELETE FROM t WHERE id = 1 RETURN\u0131NG *",
            "UPDATE t SET a = 1 WHERE id = 1 RETURN\u0131NG *",
            "\u017FELECT 1",
            "UPDATE t SET a = 1 WHERE id = 1 OR id = 2 \u212Aey",
            "WITH a AS (\u017FELECT 1 AS update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS upd\u0101te) UPDATE t SET a = 1 WHERE id = 1",
            "DELETE FROM t USING p WHERE p.id = t.id AND p.a = 1 L\u0130MIT",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) L\u0131MIT 1",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) \u017Fome",
            "INSERT INTO t (id, a) (\u017FELECT id, a FROM p)",
            "UPDATE\u00A0t SET a = 1 WHERE id = 1",
            "UPDATE\u000Bt SET a = 1 WHERE id = 1",
            "UPDATE\ft SET a = 1 WHERE id = 1",
            "UPDATE\rt SET a = 1 WHERE id = 1",
            "UPDATE t SET a = 1 WHERE id = 1\u2028OR id = 2",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a WHEN NOT MATCHED THEN"
                    + " INSERT (id, a) VALUES (p.id, p.a)",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a WHEN NOT MATCHED THEN"
                    + " INSERT (id, a) (VALUES (p.id, p.a))",
            "UPDATE t SET a = 1 WHERE id = 1 AND updat = 1",
            "UPDATE t SET a = 1 WHERE id = 1 AND updatex = 1 AND returning_x = 2",
            "DELETE FROM t WHERE id = 1 AND deleted = 1",
            "DELETE FROM t WHERE id = 1 AND \u212Aey = 1",
            "UPDATE t SET a = 1 WHERE id = 1 AND \"\u212A\" = 1",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM U&\"\\0061\")",
            "WITH U&\"\\0061\" AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM a)",
            "WITH a AS NOT MATERIALIZED (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM U&\"!0061\" UESCAPE '!')",
            "WITH a AS (SELECT $u$ ) UPDATE t SET a = 1 $u$ AS update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update /* ) DELETE FROM t; */) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update -- )\n) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT U&'\\0029' AS update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT E'\\x29' AS update) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT x.update FROM p x) UPDATE t SET a = 1 WHERE id = 1",
            "WITH a AS (SELECT 1 AS update), b AS (SELECT 2 AS delete) DELETE FROM t WHERE id = 1",
            "WITH a AS (SELECT 1 AS update) MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1");

    @Test
    void attackTextsArePlannedAsTheParsersPathPlansThem() {
        List<String> texts = new ArrayList<>(ATTACKS);
        StringBuilder longWith = new StringBuilder("WITH a AS (SELECT 1 AS update");
        for (int i = 0; i < 2000; i++) {
            longWith.append(", ").append(i).append(i % 2 == 0 ? " AS delete" : " insert");
        }
        texts.add(longWith.append(") UPDATE t SET a = 1 WHERE id = 1").toString());
        FirstLaneAttackPlanningTest.compare(texts, "attack42 texts", true);
    }

    /**
     * A 4,000-term WHERE: the lane fences it; the parser's path refuses it as nested too deeply (a coverage difference,
     * not a safety one, so it is not compared).
     */
    @Test
    void aVeryLongWhereIsFencedByTheLane() {
        StringBuilder longText = new StringBuilder("UPDATE t SET a = 1 WHERE id = 1");
        for (int i = 0; i < 4000; i++) {
            longText.append(" OR id = ").append(i);
        }
        SqlRewriter first = new SqlRewriter(
                FirstLaneAttackPlanningTest.targets(), RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(2), true);
        long before = first.skeletonFirstPlans();
        assertTrue(first.plan(longText.toString()) instanceof RewritePlan.Fenced, "the long UPDATE is fenced");
        assertTrue(first.skeletonFirstPlans() > before, "by the lane");
    }
}
