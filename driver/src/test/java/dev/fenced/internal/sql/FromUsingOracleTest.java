package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
 * The oracle of the lane's UPDATE ... FROM and DELETE ... USING ({@link PlainFromList}): every such statement the
 * lane plans must get the plan the parser's path gives it (a rewriter with the lane off), compared as
 * {@link SkeletonFirstOracleTest#difference} compares plans (same tokens sent, same segments, parameters, tables,
 * mode, relative-update flag, token domain), under each relative-update policy and with and without a NULL token.
 * Generated: targets with and without an alias, with tombstones, without a key, in observe mode; FROM and USING
 * lists of one or several tables, with aliases, quoted and schema-qualified names, self joins, protected tables,
 * aliases that shadow the target, and the forms the lane declines (JOIN, subqueries, functions, LATERAL, ONLY,
 * {@code t *}, TABLESAMPLE, column alias lists); SET values reading the FROM items' columns, the target's own by
 * every spelling, fields, whole rows and queries; join conditions, volatile and unrepeatable WHEREs, RETURNING.
 */
class FromUsingOracleTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    private static FencingTargets targets() {
        List<String> columns = List.of("id", "a", "b", "n", "j", "fence");
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(columns, List.of("id"), "o"));
        return FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
    }

    @Test
    void generatedFromAndUsingPlansAreTheParsersPlans() {
        FencingTargets targets = targets();
        List<String> texts = generated(new Random(2026), LongRun.cases(800, 4000));
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            Counts c = compare(targets, policy, texts);
            System.out.printf(
                    Locale.ROOT,
                    "generated FROM/USING, relative updates %s: %d statements, %d planned by position first (%d with a"
                            + " FROM or USING list, %d of those compared with JSqlParser's plan), %d relative, %d"
                            + " divergences%n",
                    policy,
                    texts.size(),
                    c.fast,
                    c.fastFromUsing,
                    c.againstParser,
                    c.relative,
                    c.divergences.size());
            assertTrue(c.divergences.isEmpty(), policy + ":\n" + String.join("\n", c.divergences));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                assertTrue(c.fastFromUsing >= texts.size() / 6, "the lane planned only " + c.fastFromUsing);
                assertTrue(c.againstParser >= texts.size() / 8, "compared with JSqlParser only " + c.againstParser);
                assertTrue(c.relative > 0, "no relative update among the lane's plans");
            }
        }
    }

    /** Plain forms the lane must plan (so the oracle above compares something), and forms it must decline. */
    @Test
    void theLanePlansPlainListsAndDeclinesTheRest() {
        FencingTargets targets = targets();
        SqlRewriter first = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, true);
        for (String planned : List.of(
                "UPDATE t SET a = s.a FROM s WHERE t.id = s.id",
                "UPDATE t AS x SET a = y.a, n = z.n FROM s y, public.r AS z WHERE x.id = y.id AND y.id = z.id",
                "UPDATE t SET n = n + 1 FROM s WHERE t.id = s.id RETURNING t.n, s.b",
                "DELETE FROM t USING s WHERE t.id = s.id",
                "DELETE FROM t x USING s AS y, \"R\" WHERE x.id = y.id RETURNING y.*",
                "DELETE FROM t USING s",
                "UPDATE t SET a = x.a FROM s x WHERE true")) { // x names s's rows here, not the target's
            long before = first.skeletonFirstPlans();
            assertTrue(first.plan(planned) instanceof RewritePlan.Fenced, planned);
            assertEquals(before + 1, first.skeletonFirstPlans(), "not planned first: " + planned);
        }
        for (String declined : List.of(
                "UPDATE t SET a = t2.a FROM t t2 WHERE t.id = t2.id", // self join
                "UPDATE t SET a = o.a FROM o WHERE t.id = o.id", // a protected table read
                "UPDATE t SET a = s.a FROM s JOIN r ON r.id = s.id WHERE t.id = s.id",
                "UPDATE t SET a = q.a FROM (SELECT 1 AS a) q",
                "UPDATE t SET a = g FROM generate_series(1, 2) g",
                "UPDATE t SET a = s.a FROM ONLY s",
                "UPDATE t SET a = s.a FROM s TABLESAMPLE system (1)",
                "UPDATE t SET a = s.x FROM s s(x)",
                "UPDATE t AS x SET a = s.a FROM s AS x",
                "UPDATE t SET a = (SELECT s.a) FROM s",
                "UPDATE t SET a = public.s.a FROM public.s",
                "DELETE FROM t USING t t2 WHERE t.id = t2.id",
                "DELETE FROM t USING s JOIN r ON r.id = s.id",
                "DELETE FROM t USING s WHERE random() > 0.5")) {
            long before = first.skeletonFirstPlans();
            first.plan(declined);
            assertEquals(before, first.skeletonFirstPlans(), "planned first, should decline: " + declined);
        }
    }

    /** The list reader: plain items and their qualifiers, or null for anything else. */
    @Test
    void plainFromListReadsOnlyPlainTables() {
        PlainFromList l = PlainFromList.read(SqlLexer.tokenize("s, public.r AS Z, \"Q\" q2 WHERE"), 0);
        assertNotNull(l);
        assertEquals(List.of("s", "z", "q2"), l.qualifiers());
        assertEquals(List.of(TableName.parse("s"), TableName.parse("public.r"), new TableName(null, "Q")), l.tables());
        assertEquals(7 + 2 + 1, l.end());
        for (String not : List.of(
                "s JOIN r ON true",
                "(SELECT 1) q",
                "f(1) g",
                "LATERAL f(1)",
                "ONLY s",
                "s *",
                "s AS",
                "s,",
                "a.b.c",
                "s x(a)",
                "s TABLESAMPLE system (1)",
                "s CROSS JOIN r",
                "s NATURAL JOIN r",
                "s AS select")) {
            assertNull(PlainFromList.read(SqlLexer.tokenize(not), 0), not);
        }
    }

    private record Counts(int fast, int fastFromUsing, int againstParser, int relative, List<String> divergences) {}

    private static Counts compare(FencingTargets targets, RelativeUpdatePolicy policy, List<String> texts) {
        SqlRewriter first = new SqlRewriter(targets, policy, PARSE_TIMEOUT, true);
        SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
        int fast = 0;
        int fastFromUsing = 0;
        int againstParser = 0;
        int relative = 0;
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
                if (difference != null) {
                    divergences.add((nullToken ? "(NULL token) " : "") + sql + "\n    " + difference);
                }
                if (!nullToken && byPosition) {
                    fast++;
                    String upper = sql.toUpperCase(Locale.ROOT);
                    boolean list = upper.contains(" USING ") || upper.startsWith("UPDATE") && upper.contains(" FROM ");
                    fastFromUsing += list ? 1 : 0;
                    againstParser += list && !parserFellBack ? 1 : 0;
                    relative += ((RewritePlan.Fenced) planned).relativeUpdate() ? 1 : 0;
                }
            }
        }
        return new Counts(fast, fastFromUsing, againstParser, relative, divergences);
    }

    // ------------------------------------------------------------------------------------------------ generator

    private static final String[] TARGETS = {
        "t", "T", "\"t\"", "public.t", "t AS x", "t x", "public.t AS x", "t AS \"X\"", "o", "o AS x", "k", "u"
    };

    /** FROM/USING lists; {@code y} and {@code z} are the usual aliases, {@code x} the target's. */
    private static final String[] LISTS = {
        "s",
        "s",
        "s AS y",
        "s y",
        "public.s",
        "public.s AS y",
        "\"s\"",
        "\"S\" y",
        "S AS Y",
        "s AS \"y\"",
        "s y, r z",
        "s, r",
        "s y, public.r AS z, q",
        "s AS x",
        "s AS t",
        "t",
        "t t2",
        "t AS y",
        "public.t y",
        "o",
        "o y",
        "k y",
        "s y JOIN r z ON y.id = z.id",
        "s y CROSS JOIN r z",
        "(SELECT 1 AS id, 2 AS a) y",
        "generate_series(1, 3) y",
        "LATERAL (SELECT 1) y",
        "ONLY s y",
        "s * y",
        "s y TABLESAMPLE system (50)",
        "s y(id, a)",
        "s AS value",
        "s y, LATERAL (SELECT y.a) z"
    };

    private static final String[] COLUMNS = {"a", "b", "n", "\"a\"", "A", "fence"};

    private static final String[] VALUES = {
        "1",
        "?",
        "'s'",
        "NULL",
        "DEFAULT",
        "a",
        "n + 1",
        "b",
        "y.a",
        "y.n",
        "y.b",
        "Y.n",
        "\"y\".n",
        "z.a",
        "s.a",
        "s.n",
        "S.n",
        "r.n",
        "q.b",
        "t.n",
        "x.n",
        "t2.n",
        "public.s.n",
        "public.t.n",
        "y.n.f",
        "(y).n",
        "(y.n).f",
        "f(y)",
        "y",
        "t",
        "x",
        "coalesce(y.a, 0) + 1",
        "lower(y.b)",
        "y.n::text",
        "CAST(y.n AS int)",
        "CASE WHEN y.a > 1 THEN y.b ELSE 'z' END",
        "(SELECT r.n FROM r)",
        "(SELECT n)",
        "y.a || ?",
        "y.id * 2",
        "t.fence",
        "random()",
        "y.n /* c */ + 1"
    };

    private static final String[] WHERES = {
        "",
        " WHERE id = ?",
        " WHERE t.id = s.id",
        " WHERE x.id = y.id",
        " WHERE t.id = y.id AND y.n > 1",
        " WHERE x.id = y.id AND y.id = z.id",
        " WHERE y.b = 'it''s ?'",
        " WHERE t.id = y.id AND random() > 0.5",
        " WHERE y.id IN (SELECT id FROM r FOR UPDATE SKIP LOCKED)",
        " WHERE y.id = (SELECT id FROM r LIMIT 1)",
        " WHERE y.id = (SELECT id FROM r ORDER BY id LIMIT 1)",
        " WHERE EXISTS (SELECT 1 FROM t WHERE t.id = y.id)",
        " WHERE y.j @? '$.a'",
        " WHERE y.id = $$?$$::int -- c\n",
        " WHERE y.a IS DISTINCT FROM t.a",
        " WHERE CURRENT OF c",
        "\nWHERE\ty.id=1"
    };

    private static final String[] RETURNINGS = {"", "", "", " RETURNING *", " RETURNING y.*", " RETURNING t.id, y.n"};

    static List<String> generated(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            String target = pick(random, TARGETS);
            String list = pick(random, LISTS);
            String where = pick(random, WHERES);
            String returning = pick(random, RETURNINGS);
            if (random.nextInt(5) < 3) {
                StringBuilder b = new StringBuilder(random.nextInt(5) == 0 ? "update " : "UPDATE ")
                        .append(target)
                        .append(" SET ");
                int items = 1 + random.nextInt(3);
                List<String> used = new ArrayList<>();
                for (int i = 0; i < items; i++) {
                    String c = pick(random, COLUMNS);
                    if (used.contains(TableName.fold(c))) {
                        continue;
                    }
                    used.add(TableName.fold(c));
                    b.append(used.size() > 1 ? ", " : "");
                    if (random.nextInt(8) == 0) {
                        b.append('(')
                                .append(c)
                                .append(") = ROW(")
                                .append(pick(random, VALUES))
                                .append(')');
                    } else {
                        b.append(c).append(random.nextInt(5) == 0 ? "=" : " = ").append(pick(random, VALUES));
                    }
                }
                b.append(random.nextInt(6) == 0 ? " from " : " FROM ").append(list);
                out.add(b.append(where).append(returning).toString());
            } else {
                String using = random.nextInt(8) == 0 ? "" : (random.nextInt(6) == 0 ? " using " : " USING ") + list;
                out.add("DELETE FROM " + target + using + where + returning);
            }
        }
        assertEquals(count, out.size());
        return out;
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
