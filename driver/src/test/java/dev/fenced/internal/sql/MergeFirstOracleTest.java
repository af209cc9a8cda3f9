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
 * The oracle of MERGE planned first by position ({@link SkeletonFencer#fenceFirst}, before the parser is asked): every
 * generated MERGE is planned by a rewriter with the lane on and by one with it off (the parser's path, and the
 * fallback by position where JSqlParser cannot read it), and the two plans must be the same plan
 * ({@link SkeletonFirstOracleTest#difference}: PostgreSQL tokens of the sent text, segments, parameter map, token
 * places, tables, mode, relative-update flag, token domain, token requirement; refusals alike). Two generators: the
 * MERGE forms of {@link MergeByPositionOracleTest} (every action, conditions, sources, RETURNING, ONLY, observe mode),
 * and SET values, SET targets and neighbours chosen to sit on the edge of the relative-update judgement (names
 * spelled as an assigned column as functions, named arguments, types, fields, qualifiers of the target, its alias, the
 * source and a schema, the whole row, subqueries), with the forms the lane declines (INSERT DEFAULT VALUES, a view,
 * {@code t *}, fields and subscripts as SET targets, WITH before the MERGE). Under each relative-update policy, with
 * and without tombstones, with a token and with a NULL one.
 */
class MergeFirstOracleTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    private static final List<String> COLUMNS = List.of("id", "a", "b", "n", "d", "fence");

    private static List<ProtectedTable> tables() {
        return List.of(
                new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("nk"), "fence", FencingMode.ENFORCE));
    }

    private static FencingTargets targets(boolean tombstones) {
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(COLUMNS, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(COLUMNS, List.of("id"), "o"),
                TableName.parse("k"), new TableShape(COLUMNS, List.of(), null));
        return FencingTargets.modelled(
                tables(),
                Map.of(TableName.parse("v"), "a view that reads t"),
                Set.of("random"),
                shapes,
                tombstones ? TableName.parse("fenced_tombstone") : null);
    }

    /** The counts of one comparison run. */
    record Result(int texts, int plannedFirst, int compared, List<String> divergences) {}

    /** Every text planned with the lane on and off, under both policies, catalogs and token kinds. */
    static Result compare(List<String> texts) {
        int plannedFirst = 0;
        int compared = 0;
        List<String> divergences = new ArrayList<>();
        for (boolean tombstones : new boolean[] {true, false}) {
            FencingTargets targets = targets(tombstones);
            // WARN plans as ALLOW does (it only logs)
            for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
                SqlRewriter first = new SqlRewriter(targets, policy, PARSE_TIMEOUT, true);
                SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
                for (String sql : texts) {
                    for (boolean nullToken : new boolean[] {false, true}) {
                        long before = first.skeletonFirstPlans();
                        RewritePlan planned = nullToken ? first.planForNullToken(sql) : first.plan(sql);
                        RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                        boolean lane = first.skeletonFirstPlans() > before;
                        plannedFirst += lane ? 1 : 0;
                        compared++;
                        String difference = SkeletonFirstOracleTest.difference(planned, slow);
                        if (difference != null) {
                            divergences.add((tombstones ? "(tombstones) " : "") + (nullToken ? "(NULL token) " : "")
                                    + policy + " " + sql + "\n    " + difference);
                        }
                    }
                }
            }
        }
        return new Result(texts.size(), plannedFirst, compared, divergences);
    }

    @Test
    void mergeFormsPlannedFirstAreTheParsersPlans() {
        Result r = compare(MergeByPositionOracleTest.generated(new Random(2027), LongRun.cases(300, 1500)));
        report("MERGE forms", r);
        assertTrue(r.divergences.isEmpty(), failure(r));
        // 8 plans a text (2 catalogs x 2 policies x 2 tokens): most of them the lane's
        assertTrue(r.plannedFirst >= r.texts * 3, "the lane planned only " + r.plannedFirst + " of " + r.compared);
    }

    @Test
    void relativeUpdateEdgesPlannedFirstAreTheParsersPlans() {
        Result r = compare(edges(new Random(2028), LongRun.cases(300, 1500)));
        report("relative-update edges", r);
        assertTrue(r.divergences.isEmpty(), failure(r));
        assertTrue(r.plannedFirst >= r.texts, "the lane planned only " + r.plannedFirst + " of " + r.compared);
        assertTrue(r.plannedFirst <= r.compared * 3 / 4, "the lane declined almost nothing: " + r.plannedFirst);
    }

    /**
     * A named argument spelled as an assigned column ({@code f(a => 1)}, {@code f(a := 1)}) is no column reference on
     * the parser's path (JSqlParser reads a named expression), so no relative update: the lanes decline it rather than
     * flag one (they did, for an UPDATE and an upsert too, before {@code =>} and {@code :=} after a name were
     * undecided).
     */
    @Test
    void aNamedArgumentSpelledAsAnAssignedColumnIsJudgedAsTheParsersPathJudgesIt() {
        List<String> texts = List.of(
                "UPDATE t SET a = f(a => 1) WHERE id = 1",
                "UPDATE t SET a = f(b, a := 1) WHERE id = 1",
                "INSERT INTO t (id, a) VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET a = f(a => excluded.a)",
                "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = f(a => s.a)",
                "MERGE INTO t x USING src s ON x.id = s.id WHEN MATCHED THEN UPDATE SET a = f(s.b, a := 1)");
        Result r = compare(texts);
        assertTrue(r.divergences.isEmpty(), failure(r));
    }

    private static void report(String label, Result r) {
        System.out.printf(
                Locale.ROOT,
                "generated %s: %d texts, %d plans compared (2 catalogs x 2 policies x 2 tokens), %d planned by"
                        + " position first, %d divergences%n",
                label,
                r.texts,
                r.compared,
                r.plannedFirst,
                r.divergences.size());
    }

    private static String failure(Result r) {
        return r.divergences.size() + " divergences:\n"
                + String.join("\n", r.divergences.subList(0, Math.min(20, r.divergences.size())));
    }

    // ------------------------------------------------------------------------------------------------ generator

    private static final String[] TARGETS = {
        "t",
        "t AS x",
        "t x",
        "public.t",
        "T",
        "\"t\"",
        "t AS \"Q\"",
        "ONLY t",
        "o",
        "o AS x",
        "k",
        "nk",
        "v",
        "u",
        "t *",
        "t AS t"
    };
    private static final String[] SOURCES = {
        "src s",
        "(VALUES (?, ?, 'x')) AS s (id, a, b)",
        "(SELECT id, a, b FROM src) AS s",
        "src s JOIN src2 s2 ON s2.id = s.id",
        "t s",
        "(SELECT id, a, b FROM t WHERE a > 0) s",
        "LATERAL (SELECT 1 AS id, 2 AS a) s"
    };
    /** Values around the assigned columns a, b and n; ~Q~ is the target's qualifier. */
    private static final String[] VALUES = {
        "1",
        "?",
        "s.a",
        "s.a + 1",
        "a",
        "a + 1",
        "- a",
        "~Q~.a",
        "~Q~.a * 2",
        "t.a",
        "x.a",
        "public.t.a",
        "s2.a",
        "(s).a",
        "a(1)",
        "a (1)",
        "f(a => 1)",
        "f(s.b, a := 1)",
        "s.a::a",
        "CAST(s.a AS a)",
        "a::text",
        "~Q~",
        "~Q~.*",
        "(~Q~).a",
        "~Q~.zzz",
        "row_to_json(~Q~)",
        "(SELECT a FROM src)",
        "(SELECT max(a) FROM src)",
        "(SELECT s2.a FROM src s2)",
        "(SELECT ~Q~.a)",
        "(SELECT count(*) FROM src WHERE src.id = ~Q~.id)",
        "CASE WHEN a > 1 THEN 1 END",
        "CASE s.a WHEN 1 THEN n END",
        "coalesce(a, s.a)",
        "ARRAY[a]",
        "'x' || a",
        "a IS NULL",
        "n",
        "\"a\"",
        "\"A\"",
        "s.\"a\"",
        "a[1]",
        "s.d",
        "current_date",
        "now()",
        "d",
        "E'a\\\\' || s.b",
        "$$a$$",
        "/* a */ s.a",
        "a.b"
    };

    private static final String[] SET_TARGETS = {"a", "b", "n", "\"a\"", "A", "d", "(a, b)", "a.x", "a[1]", "fence"};
    private static final String[] CONDITIONS = {
        "s.a > 1",
        "~Q~.a = s.a",
        "s.a = ?",
        "random() < 2",
        "~Q~.id IN (SELECT id FROM src LIMIT 1)",
        "~Q~.id IN (SELECT id FROM src ORDER BY id LIMIT 1)",
        "EXISTS (SELECT 1 FROM src WHERE src.id = s.id)",
        "CASE WHEN s.a = 1 THEN true END",
        "s.b = 'then when'",
        "~Q~.fence IS NULL"
    };

    static List<String> edges(Random r, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String target = pick(r, TARGETS);
            String last = target.substring(target.lastIndexOf(' ') + 1);
            String qualifier = last.equals("*") ? "t" : last.startsWith("public.") ? "t" : last;
            StringBuilder sql = new StringBuilder();
            if (r.nextInt(30) == 0) {
                sql.append("WITH w AS (SELECT 1) ");
            }
            sql.append(r.nextBoolean() ? "MERGE INTO " : "merge into ")
                    .append(target)
                    .append(" USING ")
                    .append(pick(r, SOURCES))
                    .append(" ON ")
                    .append(qualifier)
                    .append(".id = s.id");
            int clauses = 1 + r.nextInt(3);
            for (int c = 0; c < clauses; c++) {
                sql.append(' ').append(clause(r));
            }
            if (r.nextInt(8) == 0) {
                sql.append(" RETURNING ").append(r.nextBoolean() ? "merge_action(), ~Q~.*" : "s.a, (SELECT 1)");
            }
            out.add(sql.toString().replace("~Q~", qualifier));
        }
        return out;
    }

    private static String clause(Random r) {
        String condition = r.nextInt(3) == 0 ? " AND " + pick(r, CONDITIONS) : "";
        switch (r.nextInt(9)) {
            case 0, 1, 2, 3:
                return "WHEN MATCHED" + condition + " THEN " + update(r);
            case 4:
                return "WHEN MATCHED" + condition + " THEN " + (r.nextBoolean() ? "DELETE" : "DO NOTHING");
            case 5:
                return "WHEN NOT MATCHED BY SOURCE" + condition + " THEN " + (r.nextBoolean() ? "DELETE" : update(r));
            default:
                return "WHEN NOT MATCHED" + (r.nextBoolean() ? " BY TARGET" : "") + condition + " THEN "
                        + switch (r.nextInt(6)) {
                            case 0 -> "DO NOTHING";
                            case 1 -> "INSERT DEFAULT VALUES";
                            case 2 -> "INSERT VALUES (s.id, s.a)";
                            default ->
                                "INSERT (id, a) VALUES (s.id, "
                                        + pick(r, VALUES).replace("~Q~", "s") + ")";
                        };
        }
    }

    private static String update(Random r) {
        StringBuilder set = new StringBuilder("UPDATE SET ");
        int items = 1 + r.nextInt(3);
        for (int i = 0; i < items; i++) {
            String column = pick(r, SET_TARGETS);
            if (column.equals("fence") && r.nextInt(4) != 0) {
                column = "b";
            }
            set.append(i > 0 ? ", " : "").append(column).append(" = ");
            set.append(column.startsWith("(") ? "(" + pick(r, VALUES) + ", s.b)" : pick(r, VALUES));
        }
        return set.toString();
    }

    private static String pick(Random r, String[] options) {
        return options[r.nextInt(options.length)];
    }
}
