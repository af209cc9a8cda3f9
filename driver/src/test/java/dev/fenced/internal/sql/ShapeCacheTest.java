package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.metrics.Tracker;
import dev.fenced.internal.sql.ShapeCacheFixtures.Modelled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The shape cache serves exactly what the full rewrite makes: for seeded texts that differ only in literals (the
 * literals drawn from a pool meant to break it: stand-in look-alikes, fenced's own literals, backslashes, dollar
 * quotes, numbers that are positions or counts), the plan through a {@link RewriteCache} equals a fresh
 * {@link SqlRewriter#plan} of the same text, and most of them come from a template without a parse.
 */
class ShapeCacheTest {

    private static final ProtectedTable T = new ProtectedTable(TableName.parse("t"), "last_token", FencingMode.ENFORCE);

    private static SqlRewriter rewriter() {
        return ShapeCacheFixtures.rewriter(new Modelled(T, List.of("id", "v", "n", "a", "last_token")));
    }

    /** {@code $S} a string literal, {@code $N} a number, {@code $L} either. */
    private static final String[] STATEMENTS = {
        "UPDATE t SET v = $S, n = $N WHERE id = $N",
        "UPDATE t SET v = $S WHERE id IN (SELECT id FROM t ORDER BY $N LIMIT $N OFFSET $N)",
        "UPDATE t SET v = $S WHERE id IN (SELECT id FROM t ORDER BY id OFFSET $N LIMIT $N)",
        "DELETE FROM t WHERE id = $N AND v = $S",
        "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE v = $S ORDER BY id LIMIT $N)",
        "INSERT INTO t (id, v) VALUES ($N, $S), ($N, $S)",
        "INSERT INTO t VALUES ($N, $S)",
        "INSERT INTO t VALUES ($N, $S, $N)",
        "INSERT INTO t (id, v) SELECT $N, $S FROM o ORDER BY $N LIMIT $N",
        "INSERT INTO t (id, v) VALUES ($N, $S) ON CONFLICT (id) DO UPDATE SET v = $S",
        "UPDATE t SET a[$N] = $N WHERE v = $S::text",
        "UPDATE t SET v = $S::regclass::text WHERE id = $N RETURNING id, $S",
        "UPDATE t SET last_token = $N WHERE id = $N",
        "UPDATE t SET v = $S, last_token = $L WHERE id = $N",
        "UPDATE o SET v = $S WHERE id = $N",
        "SELECT * FROM t WHERE id = $N AND v = $S",
        "SELECT v FROM t ORDER BY $N LIMIT $N",
        "WITH x AS (SELECT $N AS k) UPDATE t SET v = text $S FROM x WHERE t.id = x.k",
        "MERGE INTO t USING o ON t.id = o.id WHEN MATCHED AND o.v = $S THEN UPDATE SET v = $S"
                + " WHEN NOT MATCHED THEN INSERT (id, v) VALUES (o.id, $S)",
        "UPDATE t SET v = $S WHERE id = ? AND n > $N",
        "UPDATE t SET n = n + $N WHERE id = $N",
        "UPDATE t SET v = $S; UPDATE t SET n = $N",
        "UPDATE t SET (v, n) = ROW($S, $N) WHERE id = $N",
        "UPDATE t SET n = - - $N WHERE id = $N",
        "UPDATE t SET v = $S WHERE id = $N AND v IS NOT NULL IS TRUE",
        "EXPLAIN (ANALYZE $L) UPDATE t SET v = $S",
        "UPDATE t SET v = $S || $S WHERE id = -$N",
        "UPDATE t SET v = {fn concat($S, $S)} WHERE id = $N",
        "UPDATE t SET v = $S WHERE id = $N -- $S",
        "UPDATE t SET v = $S/* $S */WHERE id=$N",
        "UPDATE t SET v = $S WHERE n BETWEEN $N AND $N FOR UPDATE",
        "DELETE FROM t WHERE id = $N RETURNING $L",
        "TABLE t; UPDATE t SET v = $S",
        "UPDATE t SET v = $S WHERE id = $N OR v = 't' AND n = 975310000",
        "SET search_path = $S; UPDATE t SET v = $S",
        "UPDATE t SET v = CAST($N AS varchar($N)) WHERE id = $N",
        "UPDATE t SET v = $S WHERE id = ANY (ARRAY[$N, $N])",
        "INSERT INTO t (v) SELECT $Se FROM o",
        "INSERT INTO t (v) SELECT e$S FROM o",
    };

    private static final String[] STRINGS = {
        "'a'",
        "'b'",
        "'O''Brien'",
        "''",
        "'x?y'",
        "'a\\b'",
        "'a\\'",
        "'\\'",
        "E'a\\\\b'",
        "E'abc'",
        "e'xyz'",
        "N'nat'",
        "$$q$$",
        "$x$q$x$",
        "U&'d\\0061t'",
        "B'101'",
        "X'1F'",
        "'t'",
        "'last_token'",
        "'fenced'",
        "'~0~'",
        "'~1~'",
        "'975310000'",
        "'public.t'",
        "'true'",
        "'/'",
        "'a;b'",
        "'a{b}'",
        "'a$b'",
        "'x -- y'",
        "'/* c */'",
        "'line\nbreak'",
        "'a'\n'b'",
        "'2024-01-01'",
        "'id'",
        "'ORDER'",
        "'éà'",
        "'1'",
    };

    private static final String[] NUMBERS = {
        "0",
        "1",
        "2",
        "3",
        "7",
        "42",
        "975310000",
        "975310001",
        "999999999",
        "1000000000",
        "9223372036854775808",
        "007",
        "00",
        "1.50",
        "0.5",
        "97531.07",
        "97531.17",
        "1e5",
        "0x1F",
        "1_000",
        ".5",
        "3.",
        "10.0",
        "5",
    };

    @Test
    void aShapedPlanIsTheFullRewritesPlanForManySeededTexts() {
        long seed = Long.getLong("shapecache.seed", 26L);
        Random random = new Random(seed);
        SqlRewriter rewriter = rewriter();
        SqlRewriter fresh = rewriter();
        Tracker tracker = new Tracker();
        RewriteCache cache = new RewriteCache(rewriter, 100_000, tracker);
        int texts = 0;
        int fencedCount = 0;
        for (int round = 0; round < 8; round++) {
            for (String statement : STATEMENTS) {
                for (int variant = 0; variant < 6; variant++) {
                    String sql = draw(statement, random, variant);
                    RewritePlan got = cache.plan(sql);
                    RewritePlan want = fresh.plan(sql);
                    assertSamePlan(want, got, sql, seed);
                    texts++;
                    fencedCount += want instanceof RewritePlan.Fenced ? 1 : 0;
                }
            }
        }
        long parsed = tracker.counts().value(Counter.REWRITES_PARSED);
        System.out.printf(
                "seed %d: %d texts, %d fenced, %d served from a template%n", seed, texts, fencedCount, texts - parsed);
        // many texts came from a template (a third of the statements are never shaped: counts, positions,
        // EXPLAIN, braces, comments holding literals): the comparison above is not vacuous
        assertTrue(texts - parsed > texts / 3, "parsed " + parsed + " of " + texts + " texts");
        assertTrue(fencedCount > texts / 3, "fenced " + fencedCount + " of " + texts);
    }

    /** Literals mostly from the safe end of the pool, so most texts share a shape, with the hostile ones mixed in. */
    private static String draw(String statement, Random random, int variant) {
        List<String> values = new ArrayList<>();
        for (char kind : ShapeCacheFixtures.slots(statement, "SNL")) {
            boolean string = kind == 'S' || (kind == 'L' && random.nextBoolean());
            boolean hostile = variant > 0 && random.nextInt(4) == 0;
            if (string) {
                values.add(hostile ? STRINGS[random.nextInt(STRINGS.length)] : "'s" + random.nextInt(1000) + "'");
            } else {
                values.add(
                        hostile
                                ? NUMBERS[random.nextInt(NUMBERS.length)]
                                : Integer.toString(random.nextInt(100_000) + 1));
            }
        }
        return ShapeCacheFixtures.fill(statement, "SNL", values);
    }

    private static void assertSamePlan(RewritePlan want, RewritePlan got, String sql, long seed) {
        String divergence = ShapeCacheFixtures.divergence(want, got);
        if (divergence != null) {
            fail("seed " + seed + ": " + sql + "\n " + divergence);
        }
    }

    @Test
    void aTextThatDiffersOnlyInLiteralsIsNotParsed() {
        Tracker tracker = new Tracker();
        SqlRewriter rewriter = rewriter();
        RewriteCache cache = new RewriteCache(rewriter, 64, tracker);
        cache.plan("UPDATE t SET v = 'a', n = 1.5 WHERE id = 1");
        cache.plan("UPDATE t SET v = 'b', n = 2.5 WHERE id = 2"); // the second of the shape: its template is built
        long parsed = tracker.counts().value(Counter.REWRITES_PARSED);
        String third = "UPDATE t SET v = 'O''Brien', n = 30.25 WHERE id = 123456";
        RewritePlan.Fenced plan = assertInstanceOf(RewritePlan.Fenced.class, cache.plan(third));
        assertEquals(parsed, tracker.counts().value(Counter.REWRITES_PARSED), "served from the shape, not parsed");
        assertTrue(plan.sameAs((RewritePlan.Fenced) rewriter.plan(third)), plan::sql);
        assertTrue(plan.sql().contains("'O''Brien'")
                && plan.sql().contains("30.25")
                && plan.sql().contains("123456"));
    }

    @Test
    void literalsWhoseValueCanMatterStayInTheKey() {
        String base = "UPDATE t SET v = 'a' WHERE id = 1";
        assertNotNull(LiteralShape.of(base));
        String key = LiteralShape.of(base).key();
        assertEquals(key, LiteralShape.of("UPDATE t SET v = 'zz' WHERE id = 99").key());
        // a string another reader could read otherwise, a number spelled otherwise
        for (String other : List.of(
                "UPDATE t SET v = 'a\\' WHERE id = 1",
                "UPDATE t SET v = $$a$$ WHERE id = 1",
                "UPDATE t SET v = 'a?' WHERE id = 1",
                "UPDATE t SET v = E'a' WHERE id = 1",
                "UPDATE t SET v = 'a' WHERE id = 1e0",
                "UPDATE t SET v = 'a' WHERE id = 01",
                "UPDATE t SET v = 'a' WHERE id = 1000000000")) {
            LiteralShape shape = LiteralShape.of(other);
            assertTrue(shape == null || !shape.key().equals(key), other);
        }
        // a string's prefix is in the key and cannot run into what follows: 'a'e is the string a with alias e
        assertNotEquals(
                LiteralShape.of("INSERT INTO t (v) SELECT 'a'e FROM o").key(),
                LiteralShape.of("INSERT INTO t (v) SELECT e'a' FROM o").key());
        // positions and counts: the number is part of the key
        assertNotEquals(
                LiteralShape.of("UPDATE t SET v = 'a' WHERE id IN (SELECT id FROM t ORDER BY 1)")
                        .key(),
                LiteralShape.of("UPDATE t SET v = 'a' WHERE id IN (SELECT id FROM t ORDER BY 2)")
                        .key());
        assertNotEquals(
                LiteralShape.of("UPDATE t SET v = 'a' WHERE id IN (SELECT id FROM t ORDER BY id LIMIT 1)")
                        .key(),
                LiteralShape.of("UPDATE t SET v = 'a' WHERE id IN (SELECT id FROM t ORDER BY id LIMIT 2)")
                        .key());
        assertNotEquals(
                LiteralShape.of("UPDATE t SET a[1] = 'x'").key(),
                LiteralShape.of("UPDATE t SET a[2] = 'x'").key());
        assertEquals(
                LiteralShape.of("UPDATE t SET a = ARRAY[1, 2]").key(),
                LiteralShape.of("UPDATE t SET a = ARRAY[3, 4]").key());
        // but a literal after the counting clause's parentheses close is masked again
        assertEquals(
                LiteralShape.of("UPDATE t SET v = 'a' WHERE id IN (SELECT id FROM t LIMIT 1) AND n = 5")
                        .key(),
                LiteralShape.of("UPDATE t SET v = 'b' WHERE id IN (SELECT id FROM t LIMIT 1) AND n = 6")
                        .key());
        // statements whose literals may be options are not shaped at all
        assertNull(LiteralShape.of("EXPLAIN (ANALYZE 0) UPDATE t SET v = 'a'"));
        assertNull(LiteralShape.of("SET x = 'a'; UPDATE t SET v = 'a'"));
        assertNull(LiteralShape.of("UPDATE t SET v = {fn lcase('A')}"));
    }
}
