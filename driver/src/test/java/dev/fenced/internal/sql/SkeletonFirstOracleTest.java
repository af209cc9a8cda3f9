package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.it.size.LongRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The oracle of the cold path's fast lane ({@link SkeletonFirst}): every statement it plans must get the plan the
 * parser's path gives it, compared with a rewriter that has the lane off. Same plan means the same PostgreSQL tokens
 * in the sent text (kinds and texts; whitespace between tokens, which PostgreSQL only reads as a separator, may
 * differ), the same segments read the same way, the same parameter map and token places, the same tables, mode,
 * relative-update flag and token domain. Statements the lane declines are planned by the parser's path in both
 * rewriters and must come out identical. Run on the PostgreSQL regression corpus (every written table protected,
 * under each relative-update policy, with and without a NULL token) and on generated statements.
 */
class SkeletonFirstOracleTest {

    private static final Duration PARSE_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void corpusPlansAreTheParsersPlans() {
        List<Corpus.Record> records = Corpus.load();
        List<ProtectedTable> tables = Corpus.writtenTables(records);
        FencingTargets targets = FencingTargets.modelled(
                tables, Map.of(), Set.of(), Corpus.modelShapes(tables), TableName.parse("fenced_tombstone"));
        List<String> texts = new ArrayList<>();
        for (Corpus.Record r : records) {
            texts.add(r.sql());
        }
        StringBuilder report = new StringBuilder();
        // WARN plans as ALLOW does (it only logs): the two that plan differently
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            Result r = compare(targets, policy, texts);
            report.append(String.format(
                    Locale.ROOT,
                    "corpus, relative updates %s: %d statements, %d planned by position first (%d with the parser's"
                            + " exact text), %d divergences%n",
                    policy,
                    texts.size(),
                    r.fast,
                    r.sameText,
                    r.divergences.size()));
            assertTrue(r.divergences.isEmpty(), policy + ":\n" + String.join("\n", r.divergences));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                assertTrue(r.fast >= 300, "the fast lane planned only " + r.fast + " corpus statements");
            }
        }
        System.out.print(report);
    }

    /** UPDATE and INSERT forms with the spellings and neighbours the lane must read as the parser's path does. */
    @Test
    void generatedPlansAreTheParsersPlans() {
        FencingTargets targets = FencingTargets.of(List.of(
                new ProtectedTable(TableName.parse("t"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", dev.fenced.FencingMode.OBSERVE)));
        List<String> texts = generated(new Random(2026), LongRun.cases(400, 2000));
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            Result r = compare(targets, policy, texts);
            System.out.printf(
                    Locale.ROOT,
                    "generated, relative updates %s: %d statements, %d planned by position first (%d with the"
                            + " parser's exact text), %d divergences%n",
                    policy,
                    texts.size(),
                    r.fast,
                    r.sameText,
                    r.divergences.size());
            assertTrue(r.divergences.isEmpty(), policy + ":\n" + String.join("\n", r.divergences));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                assertTrue(r.fast >= texts.size() / 4, "the fast lane planned only " + r.fast);
            }
        }
    }

    /**
     * DELETE forms ({@link DeleteSkeleton}): targets with and without tombstones, in observe mode, without a catalog
     * shape; WHEREs with the spellings that could move a fragment, repeat a parameter or change the repeated WHERE
     * (comments, dollar quotes, E'' strings, ? in comments and strings, a field named returning), the volatile and
     * unrepeatable WHEREs both paths refuse, and the forms the lane declines (USING, ONLY, t *, subqueries, CURRENT
     * OF). The lane's plans are compared with JSqlParser's wherever JSqlParser reads the statement; what it cannot
     * read both rewriters fence by position, and those are counted apart.
     */
    @Test
    void generatedDeletePlansAreTheParsersPlans() {
        List<String> columns = List.of("id", "a", "b", "n", "j", "d", "fence");
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", dev.fenced.FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("nk"), "fence", dev.fenced.FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(columns, List.of("id"), "o"),
                TableName.parse("k"), new TableShape(columns, List.of(), null));
        FencingTargets targets = FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
        List<String> texts = generatedDeletes(new Random(2026), LongRun.cases(600, 3000));
        SqlRewriter first = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, true);
        SqlRewriter parser = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, PARSE_TIMEOUT, false);
        int fast = 0;
        int againstParser = 0;
        int bothByPosition = 0;
        int refused = 0;
        List<String> divergences = new ArrayList<>();
        for (String sql : texts) {
            for (boolean nullToken : new boolean[] {false, true}) {
                long before = first.skeletonFirstPlans();
                RewritePlan planned = nullToken ? first.planForNullToken(sql) : first.plan(sql);
                boolean byPosition = first.skeletonFirstPlans() > before;
                long fallbackBefore = parser.byPositionPlans();
                RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                boolean parserFellBack = parser.byPositionPlans() > fallbackBefore;
                String difference = difference(planned, slow);
                if (difference != null) {
                    divergences.add((nullToken ? "(NULL token) " : "") + sql + "\n    " + difference);
                }
                if (!nullToken) {
                    fast += byPosition ? 1 : 0;
                    againstParser += byPosition && !parserFellBack ? 1 : 0;
                    bothByPosition += parserFellBack ? 1 : 0;
                    refused += planned instanceof RewritePlan.Refused ? 1 : 0;
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "generated DELETEs: %d statements, %d planned by position first (%d of them compared with"
                        + " JSqlParser's plan), %d fenced by position on both sides (JSqlParser cannot read them),"
                        + " %d refused, %d divergences%n",
                texts.size(),
                fast,
                againstParser,
                bothByPosition,
                refused,
                divergences.size());
        assertTrue(divergences.isEmpty(), String.join("\n", divergences));
        assertTrue(againstParser >= texts.size() / 4, "the lane was compared with JSqlParser only " + againstParser);
        assertTrue(bothByPosition > 0, "no DELETE JSqlParser cannot read was generated");
    }

    /**
     * UPDATE and DELETE with parenthesised subqueries ({@link ReadOnlySubqueries}) in the WHERE and the SET values:
     * IN, EXISTS, scalar and ANY forms, correlated (by the target's name or alias, bare names of assigned columns)
     * and not, reading protected and unprotected tables, with ORDER BY, LIMIT, OFFSET and FETCH in every order, row
     * locks, TABLESAMPLE, WITH, volatile functions, nested, with quoted names and comments; targets with and
     * without tombstones and in observe mode. Every plan the lane makes must be the parser's path's.
     */
    @Test
    void generatedSubqueryPlansAreTheParsersPlans() {
        List<String> columns = List.of("id", "a", "b", "n", "fence");
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", dev.fenced.FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", dev.fenced.FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(columns, List.of("id"), "o"));
        FencingTargets targets = FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
        List<String> texts = generatedSubqueries(new Random(2026), LongRun.cases(600, 3000));
        for (RelativeUpdatePolicy policy : List.of(RelativeUpdatePolicy.ALLOW, RelativeUpdatePolicy.REFUSE)) {
            Result r = compare(targets, policy, texts);
            System.out.printf(
                    Locale.ROOT,
                    "generated subqueries, relative updates %s: %d statements, %d planned by position first (%d of them"
                            + " compared with JSqlParser's plan, %d with its exact text), %d divergences%n",
                    policy,
                    texts.size(),
                    r.fast,
                    r.againstParser,
                    r.sameText,
                    r.divergences.size());
            assertTrue(r.divergences.isEmpty(), policy + ":\n" + String.join("\n", r.divergences));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                assertTrue(r.fast >= texts.size() / 4, "the fast lane planned only " + r.fast);
                assertTrue(r.againstParser >= texts.size() / 8, "compared with JSqlParser only " + r.againstParser);
            }
        }
    }

    /**
     * INSERT ... ON CONFLICT ({@link ConflictClause}): DO NOTHING and DO UPDATE, with and without a conflict target
     * (names, a predicate, a constraint, the expressions and COLLATE the lane declines), DO UPDATE's WHERE, RETURNING,
     * aliases (excluded among them), {@code excluded.x} in its spellings, relative updates by the bare name, the
     * target's name or its alias, under each relative-update policy, quoted names, comments, tables with and without
     * a key in the catalog, in observe mode, and the targets and SET lists the lane declines.
     */
    @Test
    void generatedUpsertPlansAreTheParsersPlans() {
        List<String> columns = List.of("id", "a", "b", "n", "fence");
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", dev.fenced.FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("nk"), "fence", dev.fenced.FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("excluded"), "fence", dev.fenced.FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(columns, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(columns, List.of("id"), "o"),
                TableName.parse("excluded"), new TableShape(columns, List.of("id"), "excluded"),
                TableName.parse("k"), new TableShape(columns, List.of(), null));
        FencingTargets targets = FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
        List<String> texts = generatedUpserts(new Random(2026), LongRun.cases(600, 3000));
        for (RelativeUpdatePolicy policy : RelativeUpdatePolicy.values()) {
            Result r = compare(targets, policy, texts);
            System.out.printf(
                    Locale.ROOT,
                    "generated upserts, relative updates %s: %d statements, %d planned by position first (%d with"
                            + " the parser's exact text), %d divergences%n",
                    policy,
                    texts.size(),
                    r.fast,
                    r.sameText,
                    r.divergences.size());
            assertTrue(r.divergences.isEmpty(), policy + ":\n" + String.join("\n", r.divergences));
            if (policy == RelativeUpdatePolicy.ALLOW) {
                // a third of the texts are forms the lane declines (subqueries, a[1] = ..., COLLATE, no target ...)
                assertTrue(r.fast >= texts.size() / 5, "the fast lane planned only " + r.fast);
            }
        }
    }

    /**
     * @param againstParser of the {@code fast} plans, those JSqlParser planned too (the rest the parser's path fenced
     *                      by position as well, JSqlParser unable to read them)
     */
    private record Result(int fast, int sameText, int againstParser, List<String> divergences) {}

    private static Result compare(FencingTargets targets, RelativeUpdatePolicy policy, List<String> texts) {
        SqlRewriter first = new SqlRewriter(targets, policy, PARSE_TIMEOUT, true);
        SqlRewriter parser = new SqlRewriter(targets, policy, PARSE_TIMEOUT, false);
        int fast = 0;
        int sameText = 0;
        int againstParser = 0;
        List<String> divergences = new ArrayList<>();
        for (String sql : texts) {
            for (boolean nullToken : new boolean[] {false, true}) {
                long before = first.skeletonFirstPlans();
                RewritePlan planned = nullToken ? first.planForNullToken(sql) : first.plan(sql);
                boolean byPosition = first.skeletonFirstPlans() > before;
                long fallbackBefore = parser.byPositionPlans();
                RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                boolean parserFellBack = parser.byPositionPlans() > fallbackBefore;
                String difference = difference(planned, slow);
                fast += byPosition && !nullToken ? 1 : 0;
                againstParser += byPosition && !nullToken && !parserFellBack ? 1 : 0;
                if (difference != null) {
                    divergences.add((nullToken ? "(NULL token) " : "") + sql + "\n    " + difference);
                } else if (byPosition
                        && !nullToken
                        && ((RewritePlan.Fenced) planned).sql().equals(((RewritePlan.Fenced) slow).sql())) {
                    sameText++;
                }
            }
        }
        return new Result(fast, sameText, againstParser, divergences);
    }

    /** Null when the two plans are the same plan (see the class comment); otherwise how they differ. */
    static @Nullable String difference(RewritePlan a, RewritePlan b) {
        if (a instanceof RewritePlan.Fenced fa && b instanceof RewritePlan.Fenced fb) {
            if (!sameTokens(fa.sql(), fb.sql())) {
                return "sent texts differ:\n    fast:   " + fa.sql() + "\n    parser: " + fb.sql();
            }
            String[] sa = fa.segments();
            String[] sb = fb.segments();
            if (sa.length != sb.length) {
                return "segment counts differ";
            }
            for (int i = 0; i < sa.length; i++) {
                if (!sameTokens(sa[i], sb[i])) {
                    return "segment " + i + " differs: " + sa[i] + " | " + sb[i];
                }
            }
            for (int p = 1; p <= fa.userParameterCount(); p++) {
                if (!Arrays.equals(fa.delegateIndexes(p), fb.delegateIndexes(p))) {
                    return "parameter " + p + " is bound at other places";
                }
            }
            if (fa.userParameterCount() != fb.userParameterCount()
                    || !Arrays.equals(fa.tokenIndexes(), fb.tokenIndexes())) {
                return "parameters or token places differ";
            }
            if (!fa.tables().equals(fb.tables())
                    || fa.mode() != fb.mode()
                    || fa.relativeUpdate() != fb.relativeUpdate()
                    || fa.schemaChange() != fb.schemaChange()
                    || !fa.tokenDomain().equals(fb.tokenDomain())
                    || fa.tokenRequired() != fb.tokenRequired()) {
                return "what is written differs: relative " + fa.relativeUpdate() + "/" + fb.relativeUpdate()
                        + ", required " + fa.tokenRequired() + "/" + fb.tokenRequired();
            }
            return null;
        }
        return a.toString().equals(b.toString()) ? null : "plans differ:\n    fast:   " + a + "\n    parser: " + b;
    }

    /**
     * Same PostgreSQL tokens: kind and text, a keyword or unquoted name compared folded (PostgreSQL folds it), with
     * standard_conforming_strings on and off alike (both texts passed that check).
     */
    private static boolean sameTokens(String a, String b) {
        List<Token> ta = SqlLexer.tokenize(a);
        List<Token> tb = SqlLexer.tokenize(b);
        if (ta.size() != tb.size()) {
            return false;
        }
        for (int i = 0; i < ta.size(); i++) {
            Token x = ta.get(i);
            Token y = tb.get(i);
            boolean same = x.kind() == y.kind()
                    && (x.kind() == Token.Kind.WORD
                            ? TableName.fold(x.text()).equals(TableName.fold(y.text()))
                            : x.text().equals(y.text()));
            if (!same) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------------ generator

    private static final String[] TARGETS = {"t", "T", "\"t\"", "public.t", "o", "t AS x", "t x", "u"};
    private static final String[] COLUMNS = {"a", "b", "n", "\"a\"", "A", "fence", "text", "x"};
    private static final String[] VALUES = {
        "1",
        "-1",
        "- - 1",
        "1.5",
        "1e3",
        "'s'",
        "E'e\\\\s'",
        "$$d$$",
        "$q$it's$q$",
        "U&'d\\0061'",
        "B'101'",
        "?",
        "NULL",
        "DEFAULT",
        "true",
        "current_date",
        "now()",
        "lower('X')",
        "a",
        "n + 1",
        "x.a",
        "t.n",
        "public.t.n",
        "a::text",
        "CAST(n AS text)",
        "text '1'",
        "ROW(1, 2)",
        "ARRAY[1, 2]",
        "a[1]",
        "(a).f",
        "n(1)",
        "CASE WHEN a > 1 THEN b ELSE n END",
        "(SELECT 1)",
        "coalesce(n, 0) * 2",
        "a IS NOT NULL IS TRUE",
        "j @? '$.a'",
        "'a' || b",
        "interval '1 day'",
        "x",
        "extract(year FROM d)",
        "substring(b FROM 2 FOR 1)",
        "a /* c */ + 1",
        "a -- c\n + 1",
        "{fn abs(-2)}",
        "n  +  1",
        "1+n"
    };
    private static final String[] WHERES = {
        "",
        " WHERE id = 1",
        " WHERE id = ?",
        " where id IN (1, 2)",
        " WHERE a IS DISTINCT FROM b",
        " WHERE id = (SELECT max(id) FROM t)",
        " WHERE EXISTS (SELECT 1 FROM o)",
        " WHERE CURRENT OF c",
        " WHERE id = 1 RETURNING *",
        " WHERE id = 1 RETURNING n, fence",
        " FROM s WHERE s.id = t.id",
        " WHERE id = 1 ORDER BY id LIMIT 1",
        " WHERE b = 'it''s'",
        " WHERE b LIKE 'a\\%'",
        "\nWHERE\tid=1"
    };

    private static List<String> generated(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            String target = TARGETS[random.nextInt(TARGETS.length)];
            if (random.nextBoolean()) {
                StringBuilder b = new StringBuilder(random.nextInt(5) == 0 ? "update " : "UPDATE ")
                        .append(target)
                        .append(random.nextInt(7) == 0 ? " set " : " SET ");
                int items = 1 + random.nextInt(3);
                List<String> used = new ArrayList<>();
                for (int i = 0; i < items; i++) {
                    String c = COLUMNS[random.nextInt(COLUMNS.length)];
                    if (used.contains(TableName.fold(c))) {
                        continue;
                    }
                    used.add(TableName.fold(c));
                    b.append(used.size() > 1 ? (random.nextBoolean() ? ", " : ",") : "");
                    if (random.nextInt(6) == 0) {
                        b.append('(')
                                .append(c)
                                .append(") = ROW(")
                                .append(pick(random, VALUES))
                                .append(')');
                    } else {
                        b.append(c).append(random.nextInt(5) == 0 ? "=" : " = ").append(pick(random, VALUES));
                    }
                }
                b.append(pick(random, WHERES));
                out.add(b.toString());
            } else {
                List<String> used = new ArrayList<>();
                int width = 1 + random.nextInt(3);
                while (used.size() < width) {
                    String c = COLUMNS[random.nextInt(COLUMNS.length)];
                    if (!used.contains(c)
                            && used.stream().noneMatch(u -> TableName.fold(u).equals(TableName.fold(c)))) {
                        used.add(c);
                    }
                }
                StringBuilder b = new StringBuilder("INSERT INTO ")
                        .append(target.replace(" x", " AS x").replace("AS AS", "AS"))
                        .append(random.nextInt(5) == 0 ? "(" : " (")
                        .append(String.join(random.nextBoolean() ? ", " : ",", used))
                        .append(random.nextInt(5) == 0 ? ")VALUES " : ") VALUES ");
                int rows = 1 + random.nextInt(3);
                for (int r = 0; r < rows; r++) {
                    b.append(r > 0 ? ", " : "").append('(');
                    int w = random.nextInt(8) == 0 ? width + 1 : width;
                    for (int i = 0; i < w; i++) {
                        b.append(i > 0 ? ", " : "").append(pick(random, VALUES));
                    }
                    b.append(')');
                }
                b.append(pick(
                        random,
                        "",
                        "",
                        "",
                        " RETURNING *",
                        " RETURNING id",
                        " ON CONFLICT DO NOTHING",
                        ";",
                        " ON CONFLICT (id) DO UPDATE SET a = 1"));
                out.add(b.toString());
            }
        }
        assertEquals(count, out.size());
        return out;
    }

    private static final String[] DELETE_TARGETS = {
        "t",
        "T",
        "\"t\"",
        "public.t",
        "public.t AS x",
        "t AS x",
        "t x",
        "t AS \"X\"",
        "o",
        "o y",
        "k",
        "nk",
        "u",
        "ONLY t",
        "t *",
        "t AS where"
    };
    private static final String[] DELETE_CONDITIONS = {
        "id = 1",
        "id = ?",
        "id IN (1, 2)",
        "a IS DISTINCT FROM n",
        "x.id = 1",
        "t.id = 1",
        "\"id\" = 1",
        "fence IS NULL",
        "b = 'it''s ?'",
        "b LIKE 'a\\%'",
        "b = E'e\\'' ?'",
        "b = $$? ' --$$",
        "b = $q$it's$q$",
        "b = 'x' || ?",
        "n::text = '1'",
        "CAST(n AS text) = ?",
        "(id = 1)",
        "NOT (id = 1 OR n IS NULL)",
        "n = - - 1",
        "n = - 1",
        "a IS NOT NULL IS TRUE",
        "j @? '$.a'",
        "j @@ '$.a == 1'",
        "j ?| array['a']",
        "d BETWEEN {d '2020-01-01'} AND {d '2021-01-01'}",
        "a = {fn abs(-2)}",
        "id = 1 /* c ? ' */",
        "id = 1 -- c ?\n",
        "id=1",
        "coalesce(n, 0) > 1",
        "lower(b) = 'x'",
        "now() > d",
        "random() < 0.5",
        "nextval('s') > 0",
        "id = (SELECT max(id) FROM s)",
        "EXISTS (SELECT 1 FROM o)",
        "id IN (SELECT id FROM s FOR UPDATE SKIP LOCKED)",
        "id IN (SELECT id FROM s LIMIT 1)",
        "CURRENT OF c",
        "(j).returning = 1",
        "x.returning = 1",
        "b ~ '^a'",
        "a BETWEEN 1 AND ?",
        "d > DATE '2020-01-01'",
        "interval '1 day' > interval '1 hour'"
    };
    private static final String[] DELETE_TAILS = {
        "", "", "", " RETURNING *", " RETURNING id, fence", " RETURNING n AS returning", " RETURNING ?", ";", " USING s"
    };

    private static List<String> generatedDeletes(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            StringBuilder b = new StringBuilder(pick(random, "DELETE FROM ", "delete from ", "DELETE\nFROM\t"))
                    .append(pick(random, DELETE_TARGETS));
            if (random.nextInt(6) != 0) {
                b.append(pick(random, " WHERE ", " where ", "\nWHERE\t", "/**/WHERE "))
                        .append(pick(random, DELETE_CONDITIONS));
                if (random.nextInt(3) == 0) {
                    b.append(pick(random, " AND ", " OR ")).append(pick(random, DELETE_CONDITIONS));
                }
            }
            b.append(pick(random, DELETE_TAILS));
            out.add(b.toString());
        }
        return out;
    }

    private static final String[] SUB_TARGETS = {"t", "T", "\"t\"", "public.t", "t AS x", "t x", "o", "k", "u"};
    private static final String[] SUB_SOURCES = {
        "s",
        "\"S\"",
        "public.s",
        "t",
        "o AS y",
        "s /* c */",
        "s AS \"Q\"",
        "k",
        "s JOIN o ON o.id = s.id",
        "s JOIN o USING (id)",
        "s TABLESAMPLE SYSTEM (10)",
        "ONLY s"
    };
    private static final String[] SUB_TAILS = {
        "",
        "",
        " ORDER BY id",
        " LIMIT 1",
        " OFFSET 1",
        " ORDER BY id LIMIT 1",
        " ORDER BY id OFFSET 1 LIMIT 2",
        " ORDER BY id LIMIT 2 OFFSET 1",
        " LIMIT 1 OFFSET 1",
        " OFFSET 1 LIMIT 1",
        " ORDER BY id FETCH FIRST 1 ROWS ONLY",
        " FETCH FIRST 1 ROWS ONLY",
        " ORDER BY id OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
        " OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
        " ORDER BY \"id\" DESC NULLS LAST LIMIT ?",
        " LIMIT ALL",
        " GROUP BY id HAVING count(*) > 1",
        " FOR UPDATE",
        " FOR UPDATE SKIP LOCKED",
        " FOR NO KEY UPDATE",
        " FOR SHARE",
        " ORDER BY id FOR UPDATE",
        " -- c\n",
        " UNION SELECT id FROM o",
        " ORDER BY random()"
    };
    private static final String[] SUB_CONDITIONS = {
        "",
        " WHERE b = 'x'",
        " WHERE a = ?",
        " WHERE id > 1 /* ? ' */",
        " WHERE random() < 0.5",
        " WHERE n IS NOT NULL",
        " WHERE s.id = t.id",
        " WHERE s.id = x.id",
        " WHERE s.id = id",
        " WHERE id IN (SELECT id FROM o WHERE b = $$it's$$)",
        " WHERE EXISTS (SELECT 1 FROM s s2 WHERE s2.id = s.id)",
        " WHERE s.n = t.n",
        " WHERE \"id\" = (SELECT max(id) FROM k)"
    };

    /** A subquery: {@code (SELECT <what> FROM <source> <condition> <tail>)}. */
    private static String subquery(Random random, String what) {
        return "(" + pick(random, "SELECT ", "select ", "SELECT\n") + what + " FROM " + pick(random, SUB_SOURCES)
                + pick(random, SUB_CONDITIONS) + pick(random, SUB_TAILS) + ")";
    }

    private static String subqueryCondition(Random random) {
        return switch (random.nextInt(9)) {
            case 0, 1 -> "id IN " + subquery(random, pick(random, "id", "\"id\"", "s.id", "a"));
            case 2 -> pick(random, "EXISTS ", "NOT EXISTS ") + subquery(random, pick(random, "1", "*", "n"));
            case 3 -> "n = " + subquery(random, pick(random, "max(n)", "count(*)", "a", "min(x.n)"));
            case 4 -> "id = ANY " + subquery(random, "id");
            case 5 -> "id IN (SELECT id FROM s WHERE id IN " + subquery(random, "id") + ")";
            case 6 -> "id IN ((SELECT id FROM s) UNION (SELECT id FROM o))";
            case 7 -> "id IN (WITH w AS (SELECT 1 AS id) SELECT id FROM w)";
            default -> "id = 1";
        };
    }

    private static final String[] SUB_VALUES = {
        "1",
        "?",
        "n + 1",
        "x.n",
        "(SELECT max(b) FROM s)",
        "(SELECT max(n) FROM s)",
        "(SELECT n FROM s WHERE s.id = t.id)",
        "(SELECT a FROM s WHERE s.id = x.id)",
        "(SELECT s.b FROM s WHERE s.id = id)",
        "(SELECT t.n)",
        "(SELECT n + 1)",
        "(SELECT x.a FROM s AS x)",
        "coalesce((SELECT b FROM s LIMIT 1), 0)",
        "(SELECT count(*) FROM s) + n",
        "(SELECT count(*) FROM s) + 1",
        "ARRAY(SELECT id FROM s)",
        "EXISTS (SELECT 1 FROM s)",
        "(SELECT b FROM s ORDER BY id LIMIT 1)",
        "(SELECT b FROM s FOR UPDATE)",
        "(SELECT \"b\" FROM \"S\" /* c */ WHERE id = ?)",
        "(SELECT random())",
        "(SELECT b FROM t WHERE t.id = 1)",
        "(SELECT n(1) FROM s)",
        "(SELECT s.n FROM s)"
    };

    private static List<String> generatedSubqueries(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            String target = pick(random, SUB_TARGETS);
            StringBuilder b = new StringBuilder();
            if (random.nextBoolean()) {
                b.append(pick(random, "UPDATE ", "update ")).append(target).append(" SET ");
                List<String> used = new ArrayList<>();
                int items = 1 + random.nextInt(2);
                for (int i = 0; i < items; i++) {
                    String c = pick(random, "a", "b", "n", "\"n\"");
                    if (used.contains(TableName.fold(c))) {
                        continue;
                    }
                    used.add(TableName.fold(c));
                    b.append(used.size() > 1 ? ", " : "")
                            .append(c)
                            .append(" = ")
                            .append(pick(random, SUB_VALUES));
                }
                if (random.nextInt(5) == 0) {
                    b.append(", (a, b) = ").append(subquery(random, "a, b"));
                }
            } else {
                b.append(pick(random, "DELETE FROM ", "delete from ")).append(target);
            }
            if (random.nextInt(6) != 0) {
                b.append(pick(random, " WHERE ", "\nWHERE\t", "/**/WHERE ")).append(subqueryCondition(random));
                if (random.nextInt(3) == 0) {
                    b.append(pick(random, " AND ", " OR ")).append(subqueryCondition(random));
                }
            }
            b.append(pick(random, "", "", "", " RETURNING *", " RETURNING id, (SELECT 1)", ";"));
            out.add(b.toString());
        }
        return out;
    }

    private static final String[] UPSERT_TARGETS = {
        "t",
        "t",
        "t",
        "T",
        "\"t\"",
        "public.t",
        "t AS x",
        "t AS x",
        "public.t AS x",
        "t AS \"X\"",
        "t AS excluded",
        "o",
        "o AS y",
        "k",
        "nk",
        "u",
        "excluded",
        "excluded AS e",
        "t AS t"
    };
    private static final String[] UPSERT_COLUMNS = {"id", "a", "b", "n", "\"a\"", "A", "fence"};
    private static final String[] UPSERT_INSERTED = {"1", "?", "'s'", "DEFAULT", "now()", "$$d$$", "- 1", "NULL"};
    private static final String[] CONFLICT_TARGETS = {
        "",
        " (id)",
        " (id)",
        " (id)",
        " (id)",
        " (\"id\")",
        " ( id , a )",
        " (id) WHERE a > 0",
        " (id) where b IS NOT NULL AND n = ?",
        " ON CONSTRAINT t_pkey",
        " on constraint \"t_pkey\"",
        " (lower(b))",
        " (id COLLATE \"C\")",
        " (id int4_ops)",
        " (id) WHERE id IN (SELECT 1)",
        "/* c */(id)"
    };
    private static final String[] UPSERT_SET_VALUES = {
        "excluded.a",
        "excluded.b",
        "excluded.n",
        "excluded.a",
        "EXCLUDED.n",
        "\"excluded\".a",
        "excluded . b",
        "excluded.fence",
        "excluded.n + 1",
        "n + 1",
        "t.n + 1",
        "x.n + 1",
        "y.n + excluded.n",
        "coalesce(t.n, 0) + excluded.n",
        "a",
        "b || excluded.b",
        "1",
        "?",
        "DEFAULT",
        "now()",
        "lower(excluded.b)",
        "(SELECT 1)",
        "(SELECT n FROM s)",
        "public.t.n",
        "excluded.a /* c ? */",
        "excluded.a -- c\n",
        "'it''s'",
        "CASE WHEN excluded.n > n THEN excluded.n ELSE 0 END",
        "e.n",
        "n::text",
        "text 'x'",
        "t",
        "(t).n",
        "excluded"
    };
    private static final String[] UPSERT_SET_TARGETS = {
        "a", "b", "n", "a", "b", "n", "\"n\"", "N", "fence", "(a, b)", "a[1]", "a.f"
    };
    private static final String[] UPSERT_WHERES = {
        "",
        "",
        " WHERE t.n < excluded.n",
        " WHERE x.id = 1",
        " where excluded.a IS DISTINCT FROM a",
        " WHERE EXISTS (SELECT 1 FROM s)",
        " WHERE n > ?",
        " WHERE fence IS NULL",
        "",
        ""
    };
    private static final String[] UPSERT_TAILS = {"", "", " RETURNING *", " RETURNING id, fence", " returning n", ";"};

    private static List<String> generatedUpserts(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            List<String> used = new ArrayList<>();
            int width = 1 + random.nextInt(3);
            while (used.size() < width) {
                String c = pick(random, UPSERT_COLUMNS);
                if (used.stream().noneMatch(u -> TableName.fold(u).equals(TableName.fold(c)))) {
                    used.add(c);
                }
            }
            StringBuilder b = new StringBuilder(pick(random, "INSERT INTO ", "insert into ", "INSERT\nINTO "))
                    .append(pick(random, UPSERT_TARGETS))
                    .append(" (")
                    .append(String.join(", ", used))
                    .append(random.nextInt(8) == 0 ? ") OVERRIDING USER VALUE VALUES " : ") VALUES ");
            int rows = 1 + random.nextInt(2);
            for (int r = 0; r < rows; r++) {
                b.append(r > 0 ? ", " : "").append('(');
                for (int i = 0; i < width; i++) {
                    b.append(i > 0 ? ", " : "").append(pick(random, UPSERT_INSERTED));
                }
                b.append(')');
            }
            b.append(pick(random, " ON CONFLICT", " on conflict", "\nON CONFLICT", " ON /* c */ CONFLICT"))
                    .append(pick(random, CONFLICT_TARGETS));
            if (random.nextInt(4) == 0) {
                b.append(pick(random, " DO NOTHING", " do nothing"));
            } else {
                b.append(pick(random, " DO UPDATE SET ", " do update set ", "\nDO UPDATE\nSET "));
                int items = 1 + random.nextInt(3);
                List<String> assigned = new ArrayList<>();
                for (int i = 0; i < items; i++) {
                    String target = pick(random, UPSERT_SET_TARGETS);
                    if (assigned.contains(TableName.fold(target))) {
                        continue;
                    }
                    assigned.add(TableName.fold(target));
                    b.append(assigned.size() > 1 ? ", " : "").append(target).append(" = ");
                    if (target.startsWith("(")) {
                        b.append(pick(random, "(excluded.a, excluded.b)", "ROW(1, n)", "(SELECT 1, 2)"));
                    } else {
                        b.append(pick(random, UPSERT_SET_VALUES));
                    }
                }
                b.append(pick(random, UPSERT_WHERES));
            }
            b.append(pick(random, UPSERT_TAILS));
            out.add(b.toString());
        }
        return out;
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
