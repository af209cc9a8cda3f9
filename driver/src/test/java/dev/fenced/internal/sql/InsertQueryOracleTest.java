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
 * The oracle of the lane's INSERTs with a query source ({@link SkeletonFirst#plainSource}): {@code INSERT ...
 * SELECT}, {@code TABLE}, {@code VALUES ... UNION ...}, VALUES rows holding subqueries, with and without ON CONFLICT
 * DO NOTHING / DO UPDATE. Every statement the lane plans must get the parser's path's plan (a rewriter with the lane
 * off; same plan as {@link SkeletonFirstOracleTest#difference} says), and every statement it declines the same plan
 * in both. The forms the lane must decline (WITH, ONLY, LATERAL, row locks, SELECT INTO, subqueries in DO UPDATE)
 * are generated too.
 */
class InsertQueryOracleTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void generatedQueryInsertPlansAreTheParsersPlans() {
        List<String> columns = List.of("id", "a", "b", "n", "fence");
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(columns, List.of("id"), "o"),
                TableName.parse("k"), new TableShape(columns, List.of(), null));
        FencingTargets targets = FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
        List<String> texts = generated(new Random(2026), LongRun.cases(800, 4000));
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            Result r = compare(targets, policy, texts);
            System.out.printf(
                    Locale.ROOT,
                    "generated query INSERTs, relative updates %s: %d statements, %d planned by position first"
                            + " (%d of them JSqlParser planned too, %d fenced by the parser's path), %d divergences%n",
                    policy,
                    texts.size(),
                    r.fast,
                    r.againstParser,
                    r.parserFenced,
                    r.divergences.size());
            assertTrue(
                    r.divergences.isEmpty(),
                    policy + ": " + r.divergences.size() + " divergences:\n"
                            + String.join("\n", r.divergences.subList(0, Math.min(20, r.divergences.size()))));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                assertTrue(r.fast >= texts.size() / 5, "the lane planned only " + r.fast);
                assertTrue(r.againstParser >= texts.size() / 8, "compared with JSqlParser only " + r.againstParser);
            }
        }
    }

    /**
     * @param againstParser of the {@code fast} plans, those JSqlParser planned too (not by position)
     * @param parserFenced  statements the parser's path fenced (by either of its ways)
     */
    private record Result(int fast, int againstParser, int parserFenced, List<String> divergences) {}

    private static Result compare(FencingTargets targets, RelativeUpdatePolicy policy, List<String> texts) {
        SqlRewriter first = new SqlRewriter(targets, policy, PARSE_TIMEOUT, true);
        SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
        int fast = 0;
        int againstParser = 0;
        int parserFenced = 0;
        List<String> divergences = new ArrayList<>();
        for (String sql : texts) {
            for (boolean nullToken : new boolean[] {false, true}) {
                long before = first.skeletonFirstPlans();
                RewritePlan planned = nullToken ? first.planForNullToken(sql) : first.plan(sql);
                boolean byPosition = first.skeletonFirstPlans() > before;
                long fallbackBefore = parser.byPositionPlans();
                RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                boolean parserFellBack = parser.byPositionPlans() > fallbackBefore;
                String difference = SkeletonFirstOracleTest.difference(planned, slow);
                if (!nullToken) {
                    fast += byPosition ? 1 : 0;
                    againstParser += byPosition && !parserFellBack ? 1 : 0;
                    parserFenced += slow instanceof RewritePlan.Fenced ? 1 : 0;
                }
                if (difference != null) {
                    divergences.add((nullToken ? "(NULL token) " : "") + sql + "\n    " + difference);
                }
            }
        }
        return new Result(fast, againstParser, parserFenced, divergences);
    }

    // ------------------------------------------------------------------------------------------------ generator

    private static final String[] TARGETS = {
        "t", "t", "t", "T", "\"t\"", "public.t", "t AS x", "public.t AS x", "t AS \"X\"", "o", "o AS y", "k", "u"
    };
    private static final String[] COLUMNS = {"id", "a", "b", "n", "\"a\"", "A", "fence"};
    private static final String[] EXPRESSIONS = {
        "1",
        "?",
        "'s'",
        "s.id",
        "id + 1",
        "now()",
        "$$d$$",
        "- 1",
        "NULL",
        "a",
        "b || 'x'",
        "coalesce(n, 0)",
        "(SELECT max(id) FROM s)",
        "count(*)",
        "CASE WHEN a > 0 THEN 1 ELSE 2 END",
        "x::int",
        "s.*",
        "fence",
        "(SELECT 1 FROM s WHERE s.id = r.id)"
    };
    private static final String[] ROW_VALUES = {
        "1",
        "?",
        "'s'",
        "DEFAULT",
        "now()",
        "NULL",
        "(SELECT max(id) FROM s)",
        "(SELECT n FROM s LIMIT 1)",
        "(SELECT 1) + 1",
        "coalesce((SELECT a FROM s WHERE id = ?), 'x')",
        "(VALUES (1))",
        "(SELECT 1 FOR UPDATE)",
        "(WITH w AS (SELECT 1) SELECT * FROM w)",
        "(TABLE s)",
        "- 1"
    };
    private static final String[] FROMS = {
        "",
        " FROM s",
        " FROM s",
        " FROM public.s",
        " FROM \"S\" AS q",
        " FROM s JOIN r ON r.id = s.id",
        " FROM s JOIN r USING (id)",
        " FROM s, r",
        " FROM (VALUES (1, 2)) AS v (a, b)",
        " FROM t",
        " FROM ONLY s",
        " FROM s, LATERAL (SELECT 1) l",
        " FROM s TABLESAMPLE SYSTEM (10)",
        " FROM generate_series(1, 3) g",
        " FROM s /* c ? */"
    };
    private static final String[] QUERY_TAILS = {
        "",
        "",
        "",
        " WHERE s.a > ?",
        " WHERE a IS DISTINCT FROM 1",
        " WHERE id IN (SELECT id FROM r)",
        " WHERE EXISTS (SELECT 1 FROM r WHERE r.id = s.id)",
        " GROUP BY b HAVING count(*) > 1",
        " ORDER BY 1",
        " ORDER BY 1 LIMIT 2",
        " LIMIT ?",
        " OFFSET 1",
        " FETCH FIRST 1 ROWS ONLY",
        " FOR UPDATE",
        " FOR SHARE",
        " WINDOW w AS (ORDER BY id)",
        " -- c\n"
    };
    private static final String[] CONFLICTS = {
        "",
        "",
        "",
        " ON CONFLICT DO NOTHING",
        " on conflict do nothing",
        " ON CONFLICT (id) DO NOTHING",
        " ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING",
        " ON CONFLICT (id) DO UPDATE SET a = excluded.a",
        " ON CONFLICT (id) DO UPDATE SET a = excluded.a, b = excluded.b",
        " ON CONFLICT (id) DO UPDATE SET n = n + 1",
        " ON CONFLICT (id) DO UPDATE SET n = t.n + excluded.n",
        " ON CONFLICT (id) DO UPDATE SET n = x.n + 1",
        " ON CONFLICT (id) DO UPDATE SET b = 'x' WHERE t.n < excluded.n",
        " on conflict (id) do update set a = excluded.a where excluded.a is distinct from a",
        " ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET a = excluded.a",
        " ON CONFLICT (id) WHERE a > 0 DO UPDATE SET b = excluded.b",
        " ON CONFLICT (id) DO UPDATE SET a = (SELECT max(a) FROM s)",
        " ON CONFLICT (id) DO UPDATE SET a = excluded.a WHERE EXISTS (SELECT 1 FROM s)",
        " ON CONFLICT (id) DO UPDATE SET fence = 1",
        " ON CONFLICT (id) DO UPDATE SET (a, b) = (excluded.a, excluded.b)",
        " ON CONFLICT (lower(b)) DO UPDATE SET a = excluded.a"
    };
    private static final String[] TAILS = {"", "", "", " RETURNING *", " RETURNING id, fence", " returning n", ";"};

    static List<String> generated(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            List<String> used = new ArrayList<>();
            int width = 1 + random.nextInt(3);
            while (used.size() < width) {
                String c = pick(random, COLUMNS);
                if (used.stream().noneMatch(u -> TableName.fold(u).equals(TableName.fold(c)))) {
                    used.add(c);
                }
            }
            out.add(pick(random, "INSERT INTO ", "insert into ", "INSERT\nINTO ")
                    + pick(random, TARGETS)
                    + " ("
                    + String.join(", ", used)
                    + (random.nextInt(10) == 0 ? ") OVERRIDING SYSTEM VALUE " : ") ")
                    + source(random, width)
                    + pick(random, CONFLICTS)
                    + pick(random, TAILS));
        }
        return out;
    }

    private static String source(Random random, int width) {
        return switch (random.nextInt(12)) {
            case 0, 1, 2 -> select(random, width);
            case 3 -> pick(random, "TABLE s", "table public.s", "TABLE r");
            case 4 ->
                values(random, width, ROW_VALUES)
                        + pick(random, " UNION ", " UNION ALL ", " EXCEPT ", " INTERSECT ")
                        + values(random, width, ROW_VALUES);
            case 5 ->
                values(random, width, ROW_VALUES) + pick(random, " UNION ALL ", " union ") + select(random, width);
            case 6 ->
                select(random, width) + pick(random, " UNION ALL ", " UNION ", " EXCEPT ") + select(random, width);
            case 7 -> "(" + select(random, width) + ")" + pick(random, "", " UNION (" + select(random, width) + ")");
            case 8 -> values(random, width, ROW_VALUES) + pick(random, " ORDER BY 1", " LIMIT 1", " OFFSET ?");
            case 9 -> values(random, width, ROW_VALUES);
            case 10 -> pick(random, "WITH w AS (SELECT 1) ", "with w as (select * from s) ") + select(random, width);
            default -> select(random, width) + pick(random, " UNION TABLE s", " INTO z", "");
        };
    }

    private static String select(Random random, int width) {
        StringBuilder b = new StringBuilder(pick(random, "SELECT ", "select ", "SELECT DISTINCT ", "SELECT ALL "));
        if (random.nextInt(8) == 0) {
            b.append('*');
        } else {
            for (int i = 0; i < width; i++) {
                b.append(i > 0 ? ", " : "").append(pick(random, EXPRESSIONS));
                if (random.nextInt(6) == 0) {
                    b.append(pick(random, " AS c", " c", " AS \"from\""));
                }
            }
        }
        return b.append(pick(random, FROMS)).append(pick(random, QUERY_TAILS)).toString();
    }

    private static String values(Random random, int width, String[] options) {
        StringBuilder b = new StringBuilder(pick(random, "VALUES ", "values "));
        int rows = 1 + random.nextInt(2);
        for (int r = 0; r < rows; r++) {
            b.append(r > 0 ? ", " : "").append('(');
            for (int i = 0; i < width; i++) {
                b.append(i > 0 ? ", " : "").append(pick(random, options));
            }
            b.append(')');
        }
        return b.toString();
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
