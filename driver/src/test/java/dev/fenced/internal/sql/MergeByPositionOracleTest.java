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
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The oracle of the MERGE lane by position ({@link MergeSkeleton}, {@link MergeByPosition}): for generated MERGEs
 * JSqlParser reads, the plan by position must be {@link MergeFencer}'s plan ({@link SkeletonFirstOracleTest#difference}:
 * the same PostgreSQL tokens, parameters, token places, tables, mode, relative-update flag, token requirement), or
 * both must refuse. Every action kind, conditions and values with CASE ... WHEN ... THEN, subqueries, comments and
 * parameters, targets with and without tombstones and in observe mode, with a token and with a NULL one.
 */
class MergeByPositionOracleTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void plansByPositionAreMergeFencersPlans() {
        List<String> columns = List.of("id", "a", "b", "n", "fence");
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("nk"), "fence", FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(columns, List.of("id"), "o"),
                TableName.parse("k"), new TableShape(columns, List.of(), null));
        FencingTargets tombstoned = FencingTargets.modelled(
                tables, Map.of(), Set.of("random"), shapes, TableName.parse("fenced_tombstone"));
        FencingTargets plain = FencingTargets.modelled(tables, Map.of(), Set.of("random"), shapes, null);
        List<String> texts = generated(new Random(2026), LongRun.cases(500, 2500));
        int compared = 0;
        int fenced = 0;
        int refused = 0;
        int declined = 0;
        List<String> divergences = new ArrayList<>();
        for (FencingTargets targets : List.of(tombstoned, plain)) {
            for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
                SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
                for (String sql : texts) {
                    for (boolean nullToken : new boolean[] {false, true}) {
                        long fallbacks = parser.byPositionPlans();
                        RewritePlan byParser = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                        if (parser.byPositionPlans() > fallbacks) {
                            continue; // JSqlParser did not read it: nothing to compare with
                        }
                        Object byPosition = byPosition(targets, policy, sql, nullToken);
                        if (byPosition == null) {
                            declined++;
                            continue;
                        }
                        compared++;
                        String difference;
                        if (byPosition instanceof RewritePlan.Fenced f) {
                            difference = SkeletonFirstOracleTest.difference(f, byParser);
                        } else {
                            difference = byParser instanceof RewritePlan.Refused
                                    ? null
                                    : "refused by position (" + byPosition + "), fenced by the parser: " + byParser;
                        }
                        if (difference != null) {
                            divergences.add(
                                    (nullToken ? "(NULL token) " : "") + policy + " " + sql + "\n    " + difference);
                        } else if (byPosition instanceof RewritePlan.Fenced) {
                            fenced++;
                        } else {
                            refused++;
                        }
                    }
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "generated MERGEs: %d statements x 2 catalogs x 2 policies x 2 tokens: %d compared with MergeFencer's"
                        + " plan (%d fenced alike, %d refused by both), %d declined by position, %d divergences%n",
                texts.size(),
                compared,
                fenced,
                refused,
                declined,
                divergences.size());
        assertTrue(
                divergences.isEmpty(),
                divergences.size() + " divergences:\n"
                        + String.join("\n", divergences.subList(0, Math.min(20, divergences.size()))));
        assertTrue(fenced > texts.size(), "only " + fenced + " plans fenced alike");
    }

    /** The plan by position, the refusal's reason when it refuses, or null when the lane declines. */
    private static @Nullable Object byPosition(
            FencingTargets targets, RelativeUpdatePolicy policy, String sql, boolean nullToken) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        try {
            return new SkeletonFencer(targets, policy, sql, tokens, tokens).fence(nullToken);
        } catch (Refusal r) {
            return r.getMessage();
        }
    }

    // ------------------------------------------------------------------------------------------------ generator

    private static final String[] TARGETS = {
        "t",
        "T",
        "\"t\"",
        "public.t",
        "t AS x",
        "t x",
        "o",
        "o AS x",
        "k",
        "nk",
        "t AS \"Q\"",
        "u",
        "ONLY t",
        "only public.t AS x",
        "ONLY o"
    };
    private static final String[] SOURCES = {
        "src s",
        "src AS s",
        "(SELECT id, a, b FROM src) s",
        "(SELECT id, a, b FROM src WHERE a IN (1, 2)) AS s",
        "(VALUES (1, 2, 'x')) AS s (id, a, b)",
        "src s JOIN src2 s2 ON s2.id = s.id"
    };
    private static final String[] VALUES = {
        "1",
        "- 1",
        "s.a",
        "?",
        "'x'",
        "'when then'",
        "s.a + 1",
        "CASE WHEN s.a > 1 THEN 2 ELSE 3 END",
        "(SELECT max(a) FROM src)",
        "$$d$$",
        "coalesce(s.a, 0)",
        "/* c */ 5",
        "a + 1",
        "~Q~.a * 2",
        "n",
        "CASE s.a WHEN 1 THEN 'then' END",
        "(s.a)",
        "E'e\\\\s'"
    };
    private static final String[] CONDITIONS = {
        "s.a > 1",
        "~Q~.a = s.a",
        "CASE WHEN s.a = 1 THEN true ELSE false END",
        "s.b IS NOT NULL",
        "(s.a IN (1, 2))",
        "s.a = ?",
        "EXISTS (SELECT 1 FROM src WHERE src.id = s.id)",
        "s.a > 1 /* then when */",
        "~Q~.n < (SELECT 3)",
        "s.b = 'THEN'",
        "random() < 2",
        "~Q~.fence IS NULL"
    };

    static List<String> generated(Random r, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String target = pick(r, TARGETS);
            String last = target.substring(target.lastIndexOf(' ') + 1);
            String qualifier = last.startsWith("public.") ? "t" : last;
            StringBuilder sql = new StringBuilder(r.nextBoolean() ? "MERGE INTO " : "merge into ");
            sql.append(target)
                    .append(" USING ")
                    .append(pick(r, SOURCES))
                    .append(" ON ")
                    .append(qualifier)
                    .append(".id = s.id");
            int clauses = 1 + r.nextInt(3);
            for (int c = 0; c < clauses; c++) {
                sql.append(r.nextInt(5) == 0 ? "\n" : " ").append(clause(r));
            }
            if (r.nextInt(6) == 0) {
                sql.append(" RETURNING ").append(r.nextBoolean() ? "~Q~.*" : "s.a, ~Q~.id");
            }
            out.add(sql.toString().replace("~Q~", qualifier));
        }
        return out;
    }

    private static String clause(Random r) {
        String condition = r.nextInt(3) == 0 ? "" : " AND " + pick(r, CONDITIONS);
        switch (r.nextInt(8)) {
            case 0, 1:
                return "WHEN MATCHED" + condition + " THEN " + updateOrNothing(r);
            case 2, 3:
                return "WHEN MATCHED" + condition + " THEN DELETE";
            case 4:
                return "WHEN NOT MATCHED BY SOURCE" + condition + " THEN "
                        + (r.nextBoolean() ? "DELETE" : updateOrNothing(r));
            default:
                return "WHEN NOT MATCHED" + (r.nextBoolean() ? " BY TARGET" : "") + condition + " THEN "
                        + (r.nextInt(6) == 0 ? "DO NOTHING" : insert(r));
        }
    }

    private static String updateOrNothing(Random r) {
        if (r.nextInt(6) == 0) {
            return "DO NOTHING";
        }
        StringBuilder set = new StringBuilder("UPDATE SET ");
        int items = 1 + r.nextInt(3);
        for (int i = 0; i < items; i++) {
            set.append(i > 0 ? ", " : "");
            switch (r.nextInt(6)) {
                case 0 -> set.append("(a, b) = (").append(pick(r, VALUES)).append(", 'y')");
                case 1 -> set.append("n = ").append(pick(r, VALUES));
                case 2 ->
                    set.append(r.nextInt(8) == 0 ? "fence" : "b").append(" = ").append(pick(r, VALUES));
                default ->
                    set.append(r.nextBoolean() ? "a" : "\"a\"").append(" = ").append(pick(r, VALUES));
            }
        }
        return set.toString();
    }

    private static String insert(Random r) {
        String value = pick(r, VALUES).replace("~Q~.", "s.");
        value = value.equals("a + 1") ? "s.a + 1" : value;
        return switch (r.nextInt(6)) {
            case 0 -> "INSERT VALUES (s.id, " + value + ")";
            case 1 -> "INSERT (id) VALUES (s.id)";
            case 2 -> "INSERT (id, a) OVERRIDING USER VALUE VALUES (s.id, " + value + ")";
            case 3 -> "INSERT (id, " + (r.nextInt(6) == 0 ? "fence" : "b") + ") VALUES (s.id, 'v')";
            case 4 -> "INSERT (id, a, b) VALUES (s.id, " + value + ", s.b)";
            default -> "INSERT (id, a) VALUES (s.id, " + value + ")";
        };
    }

    private static String pick(Random r, String[] options) {
        return options[r.nextInt(options.length)];
    }
}
