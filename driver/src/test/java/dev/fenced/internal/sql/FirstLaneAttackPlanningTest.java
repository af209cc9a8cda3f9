package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.it.size.LongRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Attack texts against the widened position-first lane (MERGE, INSERT from a query, UPDATE ... FROM, DELETE ...
 * USING, a WITH before a write): each planned by the lane and by the parser's path, compared as the oracle tests
 * compare, under both relative-update policies.
 */
class FirstLaneAttackPlanningTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);
    private static final List<String> COLUMNS = List.of("id", "a", "b", "n", "fence");

    static FencingTargets targets() {
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(COLUMNS, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(COLUMNS, List.of("id"), "o"));
        return FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
    }

    static final List<String> ATTACKS = List.of(
            "INSERT INTO t (id, a) SELECT p.id, p.a FROM p JOIN q ON conflict ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "INSERT INTO t (id, a) SELECT p.id, p.a FROM p JOIN q ON conflict",
            "INSERT INTO t (id, a) SELECT id, a FROM p WHERE conflict ON CONFLICT (id) DO UPDATE SET a = t.a + 1",
            "INSERT INTO t (id, a) SELECT 1 AS on, 2 ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "INSERT INTO t (id, a) SELECT id, a FROM p ON CONFLICT (id) DO UPDATE SET a = excluded.a WHERE t.b = 1 OR t.b = 2",
            "INSERT INTO t (id, a) SELECT id, a FROM p UNION SELECT 9, 9 ON CONFLICT (id) DO NOTHING",
            "INSERT INTO t (id, a) (SELECT id, a FROM p) ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a FROM p ORDER BY id LIMIT 1 ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT * FROM p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT DISTINCT id, a FROM p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a AS fence FROM p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a FROM p GROUP BY id, a ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) TABLE p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a, fence) SELECT id, a, 99 FROM p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a FROM p ON CONFLICT (id) DO UPDATE SET a = 1, fence = 99",
            "INSERT INTO t AS x (id, a) SELECT id, a FROM p ON CONFLICT (id) DO UPDATE SET a = x.a + 1",
            "INSERT INTO t AS excluded (id, a) SELECT id, a FROM p ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "INSERT INTO t (id, a) SELECT id, a FROM t ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a FROM k ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a FROM p FOR UPDATE",
            "INSERT INTO t (id, a) SELECT id, a FROM p WINDOW w AS () ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, $$ ON CONFLICT $$ FROM p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, a FROM p /* ON CONFLICT */ ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) SELECT id, (SELECT a FROM t LIMIT 1) FROM p ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) VALUES (1, 2) UNION SELECT 3, 4 ON CONFLICT (id) DO UPDATE SET a = 1",
            "INSERT INTO t (id, a) VALUES (1, 2) UNION VALUES (3, 4)",
            "INSERT INTO t (id, a) SELECT 1, 2 INTERSECT SELECT 1, 2",
            "INSERT INTO t SELECT * FROM p",
            "INSERT INTO t (id, a) OVERRIDING USER VALUE SELECT id, a FROM p",
            "UPDATE t SET a = p.a FROM p WHERE p.id = t.id",
            "UPDATE t SET a = t.a FROM p WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p AS t2 WHERE p.id = t.id",
            "UPDATE t AS x SET a = t.a FROM t WHERE t.id = x.id",
            "UPDATE t AS x SET a = p.a FROM p AS t WHERE t.id = x.id",
            "UPDATE t SET a = p.a FROM p AS excluded WHERE p.id = t.id",
            "UPDATE t SET a = fence.a FROM p AS fence WHERE fence.id = t.id",
            "UPDATE t SET a = p.a FROM p AS fence WHERE fence.id = t.id",
            "UPDATE t SET a = q.a FROM p q, o WHERE q.id = t.id",
            "UPDATE t SET a = q.a FROM public.t q WHERE q.id = t.id",
            "UPDATE t SET a = q.a FROM ONLY p q WHERE q.id = t.id",
            "UPDATE t SET a = q.a FROM p * WHERE p.id = t.id",
            "UPDATE t SET a = a FROM p WHERE p.id = t.id",
            "UPDATE t SET a = p.b FROM p WHERE p.id = t.id OR true",
            "UPDATE t SET a = b FROM p WHERE p.id = t.id",
            "UPDATE t SET a = n FROM p WHERE p.id = t.id",
            "UPDATE t SET (a, b) = (p.a, p.b) FROM p WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p WHERE p.id = t.id RETURNING p.fence, t.fence",
            "UPDATE t SET a = p.a FROM p \"T\" WHERE \"T\".id = t.id",
            "UPDATE t SET a = \"t\".a FROM p WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, p WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, \"t\" WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, \"T\" WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, public.\"t\" WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, pg_temp.t WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, T WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, fenced_tombstone WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, v WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, o WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, \"o\" x WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, O x WHERE p.id = t.id",
            "DELETE FROM t USING p WHERE p.id = t.id",
            "DELETE FROM t USING p WHERE p.id = t.id AND random() < 0.5",
            "DELETE FROM t USING p, o WHERE p.id = t.id",
            "DELETE FROM t USING p AS t2 WHERE t2.id = t.id",
            "DELETE FROM t AS x USING t WHERE t.id = x.id",
            "DELETE FROM t USING p t WHERE p.id = t.id",
            "DELETE FROM t USING p WHERE p.id = t.id RETURNING p.*",
            "DELETE FROM t USING k WHERE k.id = t.id",
            "DELETE FROM t USING \"k\" WHERE k.id = t.id",
            "DELETE FROM t USING public.k WHERE k.id = t.id",
            "DELETE FROM t USING K WHERE k.id = t.id",
            "DELETE FROM t USING fenced_tombstone f WHERE f.id = t.id",
            "WITH s AS (SELECT id FROM p) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p ORDER BY random() LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p LIMIT 1) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p TABLESAMPLE bernoulli (50)) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p WHERE nextval('q') > 0) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p WHERE clock_timestamp() > now()) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p WHERE f(id)) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p) DELETE FROM t USING s WHERE s.id = t.id",
            "WITH t AS (SELECT id FROM p) DELETE FROM t WHERE id IN (SELECT id FROM t)",
            "WITH \"T\" AS (SELECT id FROM p) DELETE FROM t WHERE id IN (SELECT id FROM T)",
            "WITH \"t\" AS (SELECT id FROM p) DELETE FROM t WHERE id IN (SELECT id FROM t)",
            "WITH x AS (SELECT id FROM p) DELETE FROM t x WHERE id IN (SELECT id FROM x)",
            "WITH x AS (SELECT id FROM p) UPDATE t AS x SET a = 1 WHERE id IN (SELECT id FROM x)",
            "WITH p AS (SELECT 1 AS id, 2 AS a) UPDATE t SET a = p.a FROM p WHERE p.id = t.id",
            "WITH o AS (SELECT 1 AS id, 2 AS a) UPDATE t SET a = o.a FROM o WHERE o.id = t.id",
            "WITH k AS (SELECT 1 AS id, 2 AS a) DELETE FROM t USING k WHERE k.id = t.id",
            "WITH s AS (SELECT 1 AS id) UPDATE t SET a = 1 FROM s WHERE s.id = t.id",
            "WITH s AS (SELECT 1 AS id) UPDATE t SET a = (SELECT a FROM s) WHERE id = 1",
            "WITH s AS (SELECT 1 AS a) UPDATE t SET a = (SELECT a FROM s) WHERE id = 1",
            "WITH excluded AS (SELECT 1 AS a) INSERT INTO t (id, a) VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "WITH fence AS (SELECT 1 AS a) UPDATE t SET a = 1 WHERE id IN (SELECT a FROM fence)",
            "WITH s AS (SELECT 1 AS a) INSERT INTO t (id, a) SELECT a, a FROM s",
            "WITH s AS (SELECT 1 AS a) INSERT INTO t (id, a) VALUES ((SELECT a FROM s), 1)",
            "WITH t AS (SELECT 1 AS a) INSERT INTO t (id, a) VALUES ((SELECT a FROM t), 1)",
            "WITH s AS (SELECT 1 AS a) INSERT INTO t (id, a) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET a = (SELECT a FROM s)",
            "WITH s AS (SELECT 1 AS a) INSERT INTO t (id, a) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET a = (SELECT t.a FROM s)",
            "WITH s AS (SELECT 1 AS a) UPDATE t SET a = (SELECT t.a FROM s) WHERE id = 1",
            "WITH s AS (SELECT 1 AS a) UPDATE t SET a = (SELECT a) WHERE id = 1",
            "UPDATE t SET a = (SELECT a) WHERE id = 1",
            "UPDATE t SET a = (SELECT p.a FROM p WHERE p.id = t.id) FROM q WHERE q.id = t.id",
            "WITH s AS (SELECT 1 AS a), s2 AS (SELECT * FROM s) UPDATE t SET a = 1 WHERE id IN (SELECT a FROM s2)",
            "WITH s(x) AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT x FROM s)",
            "WITH s AS (SELECT 1 AS id FOR UPDATE) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM t FOR UPDATE OF t) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM t) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM t) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id, a FROM t) UPDATE t SET a = s.a + 1 FROM s WHERE s.id = t.id",
            "WITH s AS (SELECT id, a FROM t) UPDATE t SET a = (SELECT s.a + 1 FROM s WHERE s.id = t.id)",
            "UPDATE t SET a = (SELECT q.a + 1 FROM t q WHERE q.id = t.id)",
            "UPDATE t SET a = p.a + 1 FROM t p WHERE p.id = t.id",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED AND p.b = 1 OR true THEN UPDATE SET a = p.a",
            "MERGE INTO t AS x USING p AS t ON t.id = x.id WHEN MATCHED THEN UPDATE SET a = t.a + 1",
            "MERGE INTO t AS x USING p AS t ON t.id = x.id WHEN MATCHED THEN UPDATE SET a = x.a + 1",
            "MERGE INTO t AS x USING t ON t.id = x.id WHEN MATCHED THEN UPDATE SET a = t.a + 1",
            "MERGE INTO t USING t AS s ON s.id = t.id WHEN MATCHED THEN UPDATE SET a = s.a + 1",
            "MERGE INTO t USING p AS excluded ON excluded.id = t.id WHEN MATCHED THEN UPDATE SET a = excluded.a",
            "MERGE INTO t USING p AS fence ON fence.id = t.id WHEN MATCHED THEN UPDATE SET a = fence.a",
            "MERGE INTO t USING (SELECT * FROM t) AS s ON s.id = t.id WHEN MATCHED THEN UPDATE SET a = s.a + 1",
            "MERGE INTO t USING (SELECT id, a FROM p) AS s ON s.id = t.id WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING (SELECT id, a FROM p ORDER BY random() LIMIT 1) AS s ON s.id = t.id WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING (SELECT id, a FROM p WHERE random() < 0.5) AS s ON s.id = t.id WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING p ON p.id = t.id AND random() < 0.5 WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED AND random() < 0.5 THEN DELETE",
            "MERGE INTO t USING k ON k.id = t.id WHEN MATCHED THEN UPDATE SET a = k.a",
            "MERGE INTO t USING o ON o.id = t.id WHEN MATCHED THEN UPDATE SET a = o.a",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED THEN INSERT (id, a) VALUES (p.id, p.a)",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED THEN INSERT (id, a, fence) VALUES (p.id, p.a, 5)",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED THEN INSERT VALUES (p.id, p.a)",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET fence = 5",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED BY SOURCE THEN UPDATE SET a = a + 1",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED BY SOURCE AND t.b = 1 OR true THEN DELETE",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = CASE WHEN p.b = 1 THEN p.a END",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a RETURNING merge_action(), t.*",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN DO NOTHING",
            "MERGE INTO t USING (VALUES (1, 2)) AS s (id, a) ON s.id = t.id WHEN MATCHED THEN UPDATE SET a = s.a",
            "MERGE INTO t USING (VALUES (1, 2)) AS s (id, t) ON s.id = t.id WHEN MATCHED THEN UPDATE SET a = s.a",
            "MERGE INTO public.t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = t.a + 1",
            "MERGE INTO public.t USING p ON p.id = public.t.id WHEN MATCHED THEN UPDATE SET a = public.t.a + 1",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a + t.a",
            "MERGE INTO t x USING p ON p.id = x.id WHEN MATCHED THEN UPDATE SET a = p.a + x.a",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a + a",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.n",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = n",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = \"T\".a",
            "MERGE INTO t USING p AS \"T\" ON \"T\".id = t.id WHEN MATCHED THEN UPDATE SET a = \"T\".a",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1 -- WHEN MATCHED THEN DELETE\n WHEN NOT MATCHED THEN DO NOTHING",
            "MERGE INTO t USING p ON p.id = t.id /* WHEN MATCHED /* nested */ THEN DELETE */ WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED AND p.b = $x$ THEN DELETE $x$ THEN UPDATE SET a = 1",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED AND p.b = E'\\' THEN DELETE' THEN UPDATE SET a = 1",
            "MERGE INTO t USING (SELECT id, 1 AS then FROM p) s ON s.id = t.id WHEN MATCHED THEN UPDATE SET a = s.then",
            "MERGE INTO t USING (SELECT id, a AS \"when\" FROM p) s ON s.id = t.id WHEN MATCHED THEN UPDATE SET a = s.\"when\"",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = CASE p.b WHEN 1 THEN 2 END WHEN NOT MATCHED THEN INSERT (id) VALUES (p.id)",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = (SELECT 1 WHERE true) WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = p.a, b = t.b WHEN NOT MATCHED BY SOURCE THEN DELETE",
            "MERGE INTO t USING p ON (p.id = t.id) WHEN MATCHED THEN UPDATE SET (a, b) = (SELECT p.a, t.b)",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET (a, b) = ROW(p.a, p.b)",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = DEFAULT",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET fence = DEFAULT",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET \"fence\" = 5",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET FENCE = 5",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED THEN INSERT (id, \"fence\") VALUES (1, 5)",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED THEN INSERT (id, a) OVERRIDING SYSTEM VALUE VALUES (1, 5)",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED THEN INSERT DEFAULT VALUES",
            "MERGE INTO t USING p ON p.id = t.id WHEN NOT MATCHED BY TARGET THEN INSERT (id) VALUES (p.id)",
            "MERGE INTO ONLY t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1",
            "MERGE INTO t * USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1",
            "MERGE INTO t USING ONLY k ON k.id = t.id WHEN MATCHED THEN UPDATE SET a = 1",
            "MERGE INTO t USING p JOIN k ON k.id = p.id ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1",
            "MERGE INTO t USING (p JOIN q ON q.id = p.id) ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1",
            "MERGE INTO t USING p ON p.id = t.id WHEN MATCHED THEN UPDATE SET a = 1 RETURNING fence",
            "MERGE INTO t AS \"fence\" USING p ON p.id = fence.id WHEN MATCHED THEN UPDATE SET a = fence.a + 1",
            "MERGE INTO t AS excluded USING p ON p.id = excluded.id WHEN MATCHED THEN UPDATE SET a = excluded.a + 1",
            "MERGE INTO k USING p ON p.id = k.id WHEN MATCHED THEN DELETE",
            "MERGE INTO k USING p ON p.id = k.id WHEN MATCHED THEN UPDATE SET a = 1",
            "MERGE INTO o USING t ON t.id = o.id WHEN MATCHED THEN UPDATE SET a = t.a",
            "UPDATE t SET a = p.a FROM p WHERE p.id = t.id AND p.b = 'FROM x'",
            "UPDATE t SET a = p.\"from\" FROM p WHERE p.id = t.id",
            "UPDATE t SET a = 1 FROM p WHERE p.id = t.id RETURNING *",
            "UPDATE t SET a = p.a FROM p -- , k\n WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p /* , k */ WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, LATERAL (SELECT 1) l WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p TABLESAMPLE system (50) WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p WHERE p.id = t.id AND random() < 0.5",
            "UPDATE t SET a = p.a FROM p, t AS t2 WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, U&\"\\0074\" WHERE p.id = t.id",
            "DELETE FROM t USING p, U&\"\\0074\" x WHERE p.id = t.id",
            "DELETE FROM t USING p, U&\"\\006B\" x WHERE p.id = t.id",
            "UPDATE t SET a = p.a FROM p, U&\"\\006B\" x WHERE p.id = t.id",
            "DELETE FROM t USING p WHERE p.id = t.id AND p.b IN (SELECT b FROM q ORDER BY random() LIMIT 1)",
            "DELETE FROM t USING p WHERE p.id = t.id AND p.b IN (SELECT b FROM q LIMIT 1)",
            "DELETE FROM t USING p WHERE p.id = t.id AND p.b = (SELECT b FROM q TABLESAMPLE bernoulli (10))",
            "DELETE FROM t AS using USING p WHERE p.id = using.id",
            "DELETE FROM t USING p AS where WHERE p.id = t.id",
            "DELETE FROM t USING p WHERE p.id = t.id RETURNING t.fence",
            "WITH s AS (SELECT 1 AS id) DELETE FROM k WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT 1 AS id) UPDATE k SET a = 1 WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT 1 AS id) INSERT INTO k (id, a) VALUES (1, 2)",
            "WITH s AS (SELECT 1 AS id) INSERT INTO t (id, a) SELECT id, 1 FROM s",
            "WITH s AS (SELECT 1 AS id), t AS (SELECT 2 AS id) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM t)",
            "WITH s AS (SELECT 1 AS id), \"T\" AS (SELECT 2 AS id) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM \"T\")",
            "WITH s AS (SELECT 1 AS id), public AS (SELECT 2 AS id) UPDATE public.t SET a = 1 WHERE id IN (SELECT id FROM t)",
            "WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM t WHERE id < 3) UPDATE public.t SET a = 1 WHERE id IN (SELECT id FROM t)",
            "WITH s AS (SELECT 1 AS id) UPDATE public.t SET a = 1 WHERE id IN (SELECT id FROM s)",
            "WITH s AS NOT MATERIALIZED (SELECT id FROM p WHERE random() < 0.5) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p WHERE random() < 0.5) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p WHERE random() < 0.5) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p) DELETE FROM t WHERE id IN (SELECT id FROM s) AND random() < 0.5",
            "WITH s AS (SELECT id FROM p) DELETE FROM t WHERE id = 1 RETURNING (SELECT count(*) FROM s)",
            "WITH s AS (SELECT id FROM p) DELETE FROM t USING s AS t2 WHERE t2.id = t.id",
            "WITH s AS (SELECT id FROM p) DELETE FROM t USING s, k WHERE s.id = t.id",
            "WITH s AS (SELECT 1) /* DELETE */ UPDATE t SET a = 1",
            "WITH s AS (SELECT 'UPDATE t SET') UPDATE t SET a = 1",
            "WITH s AS (SELECT 1 AS update) UPDATE t SET a = 1 WHERE id IN (SELECT update FROM s)",
            "WITH s AS (SELECT 1 AS delete) DELETE FROM t WHERE id IN (SELECT delete FROM s)",
            "WITH s AS (SELECT 1 AS insert) INSERT INTO t (id, a) VALUES (1, 1)",
            "WITH s AS (SELECT nextval('q') AS id) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p FETCH FIRST 1 ROWS ONLY) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT id FROM p OFFSET 1) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "WITH s AS (SELECT DISTINCT ON (b) id FROM p) DELETE FROM t WHERE id IN (SELECT id FROM s)",
            "INSERT INTO t (id, a) SELECT id AS from, a FROM p",
            "INSERT INTO t (id, a) SELECT 5 AS where, 6",
            "INSERT INTO t (id, a) SELECT 5 AS union, 6 UNION SELECT 7, 8",
            "INSERT INTO t (id, a) SELECT 5 AS select, 6 AS from",
            "INSERT INTO t (id, a) (SELECT '5', '6')",
            "INSERT INTO t (id, a) SELECT '5', '6'",
            "INSERT INTO t (id, a) SELECT id, a FROM p ORDER BY 3",
            "INSERT INTO t (id, a) SELECT 1 AS conflict, 2 ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p AS conflict ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p JOIN q ON true ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p JOIN q ON q.conflict ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p JOIN q ON (conflict) ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p JOIN q USING (id) ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p WHERE a = ANY (SELECT 1) ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p, LATERAL (SELECT 1) l ON CONFLICT DO NOTHING",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM ONLY p",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p *",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p TABLESAMPLE system (1)",
            "INSERT INTO t (id, a) SELECT x, y FROM (VALUES (1, 2)) v (x, y)",
            "INSERT INTO t (id, a) SELECT x, y FROM (SELECT 1, 2) v (x, y) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "INSERT INTO t (id, a) SELECT 1, 2 WHERE EXISTS (SELECT 1 FROM t FOR UPDATE)",
            "INSERT INTO t (id, a) SELECT * FROM (SELECT 1, 2) s",
            "INSERT INTO t (id, a) SELECT s.* FROM (SELECT 1, 2) s",
            "INSERT INTO t (id, a) SELECT 1, 2 ; ",
            "INSERT INTO t (id, a) SELECT 1, 2 UNION ALL (SELECT 3, 4 ORDER BY 1 LIMIT 1)",
            "INSERT INTO t (id, a) SELECT 1, 2 EXCEPT TABLE p",
            "INSERT INTO t (id, a) TABLE ONLY p",
            "INSERT INTO t (id, a) TABLE p *",
            "INSERT INTO t (id, a) TABLE public.p",
            "INSERT INTO t (id, a) TABLE p ORDER BY 1",
            "INSERT INTO t (id, a) VALUES (1, 2) ORDER BY 1",
            "INSERT INTO t (id, a) VALUES (1, 2) LIMIT 1",
            "INSERT INTO t (id, a) VALUES ((SELECT 1), 2) UNION ALL VALUES (3, 4)",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p GROUP BY 1, 2 HAVING count(*) > 0 WINDOW w AS () ORDER BY 1 OFFSET 0 FETCH FIRST 3 ROWS ONLY",
            "INSERT INTO t (a, id) SELECT 1, 2",
            "INSERT INTO t (id, a, b) SELECT 1, 2",
            "INSERT INTO t (id) SELECT 1, 2",
            "INSERT INTO t AS x (id, a) SELECT 1, x.a FROM p x ON CONFLICT (id) DO UPDATE SET a = x.a",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p AS excluded ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "INSERT INTO t (id, a) SELECT 1, 2 FROM p AS fence ON CONFLICT (id) DO UPDATE SET a = fence.a",
            "MERGE INTO t USING p AS T ON T.id = t.id WHEN MATCHED THEN UPDATE SET a = T.a");

    @Test
    void attackTextsArePlannedAsTheParsersPathPlansThem() {
        compare(ATTACKS, "attack texts", true);
    }

    /**
     * The attack texts respelled (seeded): names quoted in their folded spelling or upper-cased, keywords in any
     * case, comments and line breaks between tokens; PostgreSQL reads each variant as it reads the original.
     */
    @Test
    void respelledAttackTextsArePlannedAsTheParsersPathPlansThem() {
        Random random = new Random(41);
        List<String> variants = new ArrayList<>();
        for (int i = 0, n = LongRun.cases(600, 3000); i < n; i++) {
            variants.add(respell(ATTACKS.get(random.nextInt(ATTACKS.size())), random));
        }
        compare(variants, "respelled attack texts", false);
    }

    private static final Set<String> NAMES =
            Set.of("t", "p", "q", "k", "o", "s", "x", "fence", "excluded", "id", "a", "b", "n", "t2", "w");
    private static final List<String> SEPARATORS = List.of(" ", "  ", "\n", " /* c */ ", " /* /* n */ */ ", " --c\n");

    static String respell(String sql, Random random) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (i > 0) {
                boolean adjacent = tokens.get(i - 1).end() == token.start();
                out.append(adjacent ? "" : SEPARATORS.get(random.nextInt(SEPARATORS.size())));
            }
            String text = token.text();
            if (token.kind() == Token.Kind.WORD) {
                String lower = text.toLowerCase(Locale.ROOT);
                int pick = random.nextInt(4);
                if (NAMES.contains(lower) && pick == 0) {
                    text = "\"" + lower + "\"";
                } else if (pick == 1) {
                    text = text.toUpperCase(Locale.ROOT);
                } else if (pick == 2) {
                    text = lower;
                }
            }
            out.append(text);
        }
        return out.toString();
    }

    static void compare(List<String> texts, String what, boolean print) {
        FencingTargets targets = targets();
        List<String> divergences = new ArrayList<>();
        int planned = 0;
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            SqlRewriter first = new SqlRewriter(targets, policy, PARSE_TIMEOUT, true);
            SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
            for (String sql : texts) {
                for (boolean nullToken : new boolean[] {false, true}) {
                    long before = first.skeletonFirstPlans();
                    RewritePlan fast = nullToken ? first.planForNullToken(sql) : first.plan(sql);
                    boolean byPosition = first.skeletonFirstPlans() > before;
                    RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                    if (byPosition && !nullToken) {
                        planned++;
                    }
                    if (print
                            && System.getProperty("attack.print") != null
                            && policy == RelativeUpdatePolicy.ALLOW
                            && !nullToken) {
                        System.out.println((byPosition ? "FIRST " : "      ") + sql + "\n   => " + show(fast));
                    }
                    String difference = SkeletonFirstOracleTest.difference(fast, slow);
                    if (difference != null) {
                        divergences.add(policy + (nullToken ? " (NULL token) " : " ") + sql + "\n    " + difference);
                    }
                }
            }
        }
        System.out.println(what + ": " + texts.size() + ", planned first " + planned + " (both policies), divergences "
                + divergences.size());
        assertTrue(divergences.isEmpty(), divergences.size() + " divergences:\n" + String.join("\n", divergences));
    }

    private static String show(RewritePlan plan) {
        return plan instanceof RewritePlan.Fenced f
                ? f.sql() + "  [relative " + f.relativeUpdate() + "]"
                : String.valueOf(plan);
    }
}
