package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
 * The oracle of the lane for a write after a WITH of read-only queries ({@link ReadOnlyWith}): every generated
 * {@code WITH ... UPDATE | DELETE | INSERT} the lane plans must get the plan the parser's path gives it (a rewriter
 * with the lane off), compared as {@link SkeletonFirstOracleTest#difference} compares; the statements it declines
 * are planned by the parser's path on both sides and must come out the same too. The generator names queries like
 * the target, its alias and other tables, puts what the lane declines into the queries (INTO, row locks,
 * TABLESAMPLE, VALUES, TABLE, a nested WITH, a data-modifying query, SEARCH), volatile functions and unordered
 * LIMITs before a DELETE, parameters and comments in the WITH, under each relative-update policy and with a NULL
 * token.
 */
class WithFirstOracleTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    static FencingTargets targets() {
        List<String> columns = List.of("id", "a", "b", "n", "fence");
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
    void generatedWithPlansAreTheParsersPlans() {
        FencingTargets targets = targets();
        List<String> texts = generated(new Random(2026), LongRun.cases(800, 4000));
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            SqlRewriter first = new SqlRewriter(targets, policy, PARSE_TIMEOUT, true);
            SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
            int fast = 0;
            int sameText = 0;
            int refusedByParser = 0;
            int bothByPosition = 0;
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
                        continue;
                    }
                    if (!nullToken) {
                        fast += byPosition ? 1 : 0;
                        bothByPosition += parserFellBack ? 1 : 0;
                        refusedByParser += slow instanceof RewritePlan.Refused ? 1 : 0;
                        if (byPosition
                                && ((RewritePlan.Fenced) planned).sql().equals(((RewritePlan.Fenced) slow).sql())) {
                            sameText++;
                        }
                    }
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "generated WITH writes, relative updates %s: %d statements, %d planned by position first (%d with"
                            + " the parser's exact text, %d fenced by position on both sides: JSqlParser cannot read"
                            + " them), %d refused by both, %d divergences%n",
                    policy,
                    texts.size(),
                    fast,
                    sameText,
                    bothByPosition,
                    refusedByParser,
                    divergences.size());
            assertTrue(
                    divergences.isEmpty(),
                    divergences.size() + " divergences, first ones:\n"
                            + String.join("\n", divergences.subList(0, Math.min(20, divergences.size()))));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                assertTrue(fast - bothByPosition >= texts.size() / 5, "compared with JSqlParser only " + fast);
            }
        }
    }

    /**
     * The comparison catches a lane that plans the write but loses its WITH (a planted bug: the plan of the write
     * alone stands for the whole text's): for every statement the lane plans, that plan differs from the parser's.
     */
    @Test
    void aLaneThatDropsTheWithIsCaught() {
        FencingTargets targets = targets();
        SqlRewriter first = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, true);
        SqlRewriter parser = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, false);
        int caught = 0;
        for (String sql : generated(new Random(7), 400)) {
            long before = first.skeletonFirstPlans();
            first.plan(sql);
            if (first.skeletonFirstPlans() == before) {
                continue;
            }
            List<Token> tokens = SqlLexer.tokenize(sql);
            int write = StatementClassifier.dmlKeywordIndexes(tokens).get(0);
            RewritePlan planted = first.plan(sql.substring(tokens.get(write).start()));
            assertNotNull(SkeletonFirstOracleTest.difference(planted, parser.plan(sql)), sql);
            caught++;
        }
        assertTrue(caught >= 50, "only " + caught + " lane plans to plant the bug in");
    }

    /** The lane plans the issue's forms (and counts them), and keeps the WITH as written in front. */
    @Test
    void theIssuesFormsArePlannedFirst() {
        FencingTargets targets = targets();
        SqlRewriter first = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, true);
        List<String> forms = List.of(
                "WITH s AS (SELECT id FROM o WHERE b = ?) UPDATE t SET a = ? WHERE id IN (SELECT id FROM s)",
                "WITH s AS (SELECT id FROM o) DELETE FROM t WHERE id IN (SELECT id FROM s)",
                "WITH s AS (SELECT 1) INSERT INTO t (id, a) VALUES (?, ?)",
                "WITH RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM r WHERE id < 3),"
                        + " s AS MATERIALIZED (SELECT id FROM r) UPDATE t SET n = 1 WHERE id IN (SELECT id FROM s)");
        for (String sql : forms) {
            long before = first.skeletonFirstPlans();
            RewritePlan plan = first.plan(sql);
            assertEquals(before + 1, first.skeletonFirstPlans(), sql);
            String sent = ((RewritePlan.Fenced) plan).sql();
            assertEquals(sql.substring(0, sql.indexOf(") ") + 1), sent.substring(0, sql.indexOf(") ") + 1), sent);
        }
    }

    // ------------------------------------------------------------------------------------------------ generator

    /** Query names: plain, quoted, like the target, its alias, another protected table, an unprotected one. */
    private static final String[] NAMES = {"s", "s", "s", "w", "\"S\"", "t", "T", "\"t\"", "x", "o", "u", "k"};

    private static final String[] COLUMN_LISTS = {"", "", "", "(id)", "(id, n)", "(\"id\")", "(id id)"};

    private static final String[] MATERIALIZATIONS = {
        "", "", "", " MATERIALIZED", " NOT MATERIALIZED", " not materialized"
    };

    private static final String[] QUERIES = {
        "SELECT id FROM o",
        "SELECT id FROM o",
        "SELECT id, n FROM t WHERE n > ?",
        "SELECT 1 AS id",
        "select id from u where b = 'x'",
        "SELECT id FROM o ORDER BY id LIMIT 1",
        "SELECT id FROM o LIMIT 1",
        "SELECT id FROM o FOR UPDATE",
        "SELECT id FROM o FOR UPDATE SKIP LOCKED",
        "SELECT random() AS id",
        "SELECT nextval('q') AS id",
        "SELECT id INTO z FROM o",
        "SELECT id FROM o TABLESAMPLE SYSTEM (10)",
        "VALUES (1)",
        "TABLE o",
        "SELECT id FROM o UNION SELECT id FROM k",
        "WITH q AS (SELECT 1 AS id) SELECT id FROM q",
        "SELECT (WITH q AS (SELECT 1 AS id) SELECT id FROM q) AS id",
        "SELECT id FROM (SELECT id FROM o) q",
        "SELECT id FROM ONLY o",
        "SELECT id /* ? ' */ FROM o WHERE b = $$it's$$",
        "SELECT id FROM o WHERE id = ANY(?)",
        "SELECT id FROM o -- c\n",
        "SELECT s.id FROM u AS s",
        "SELECT id FROM t WHERE t.n = 1",
        "DELETE FROM o WHERE id = 1 RETURNING id",
        "UPDATE u SET a = 1 RETURNING id",
        "INSERT INTO u (id) VALUES (1) RETURNING id",
        "SELECT id FROM o OFFSET 1",
        "SELECT count(*) AS id FROM o GROUP BY b HAVING count(*) > 1"
    };

    private static final String RECURSIVE = "RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM r WHERE id < 3)";

    private static final String[] AFTER_RECURSIVE = {
        "", "", "", " SEARCH DEPTH FIRST BY id SET ord", " CYCLE id SET c USING p"
    };

    private static final String[] UPDATE_TARGETS = {"t", "T", "\"t\"", "public.t", "t AS x", "t x", "o", "k", "u"};

    private static final String[] SET_VALUES = {
        "1",
        "?",
        "n + 1",
        "'v'",
        "(SELECT max(id) FROM NAME)",
        "(SELECT count(*) FROM NAME) + 1",
        "(SELECT n FROM NAME WHERE NAME.id = t.id)",
        "(SELECT max(n) FROM t)",
        "(SELECT b FROM NAME LIMIT 1)",
        "NAME.id"
    };

    private static final String[] CONDITIONS = {
        "",
        " WHERE id IN (SELECT id FROM NAME)",
        " WHERE id IN (SELECT id FROM NAME)",
        " WHERE EXISTS (SELECT 1 FROM NAME WHERE NAME.id = t.id)",
        " WHERE id = ?",
        " WHERE id IN (SELECT id FROM x)",
        " WHERE id = (SELECT max(id) FROM NAME) AND b = ?",
        " WHERE id IN (SELECT id FROM NAME FOR UPDATE)",
        " WHERE id IN (SELECT id FROM NAME LIMIT 1)",
        " WHERE random() < 0.5",
        " /* c */ WHERE\tid IN (SELECT id FROM NAME) OR n = 2"
    };

    private static final String[] INSERTS = {
        "INSERT INTO t (id, a) VALUES (1, ?)",
        "INSERT INTO t (id, a) VALUES (?, 'x'), (2, DEFAULT)",
        "INSERT INTO t AS x (id, n) VALUES (1, 2)",
        "INSERT INTO public.t (id) VALUES (1) RETURNING *",
        "INSERT INTO t (id, a) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
        "INSERT INTO t (id, a) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
        "INSERT INTO t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = t.n + 1",
        "INSERT INTO t (id, a) SELECT id, 'x' FROM NAME",
        "INSERT INTO t (id, a) VALUES ((SELECT max(id) FROM NAME), 'x')",
        "INSERT INTO o (id) VALUES (1)",
        "INSERT INTO u (id) VALUES (1)",
        "INSERT INTO t (id, fence) VALUES (1, 2)"
    };

    static List<String> generated(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            StringBuilder b = new StringBuilder(pick(random, "WITH ", "with ", "WITH\n", "WITH /* c */ "));
            List<String> names = new ArrayList<>();
            if (random.nextInt(6) == 0) {
                b.append(RECURSIVE).append(pick(random, AFTER_RECURSIVE));
                names.add("r");
            }
            int queries = 1 + random.nextInt(random.nextInt(4) == 0 ? 3 : 1);
            for (int q = 0; q < queries; q++) {
                String name = pick(random, NAMES);
                names.add(name);
                b.append(names.size() > 1 ? ", " : "")
                        .append(name)
                        .append(pick(random, COLUMN_LISTS).isEmpty() ? "" : " " + pick(random, COLUMN_LISTS))
                        .append(" AS")
                        .append(pick(random, MATERIALIZATIONS))
                        .append(" (")
                        .append(pick(random, QUERIES))
                        .append(")");
            }
            b.append(pick(random, " ", "\n", " /* ? */ "));
            String name = names.get(random.nextInt(names.size()));
            String write;
            switch (random.nextInt(5)) {
                case 0, 1 -> {
                    StringBuilder u = new StringBuilder(pick(random, "UPDATE ", "update "))
                            .append(pick(random, UPDATE_TARGETS))
                            .append(" SET ")
                            .append(pick(random, "a", "n", "\"n\""))
                            .append(" = ")
                            .append(pick(random, SET_VALUES));
                    if (random.nextInt(4) == 0) {
                        u.append(", b = ").append(pick(random, SET_VALUES));
                    }
                    write = u.append(pick(random, CONDITIONS)).toString();
                }
                case 2, 3 ->
                    write = pick(random, "DELETE FROM ", "delete from ")
                            + pick(random, UPDATE_TARGETS)
                            + pick(random, CONDITIONS);
                default -> write = pick(random, INSERTS);
            }
            b.append(write.replace("NAME", name));
            b.append(pick(random, "", "", "", " RETURNING *", " RETURNING id, (SELECT 1)", ";"));
            out.add(b.toString());
        }
        return out;
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
