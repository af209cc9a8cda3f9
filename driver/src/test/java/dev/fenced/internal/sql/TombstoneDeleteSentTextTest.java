package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.it.size.LongRun;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The plans of never-seen DELETEs (most of a table that keeps tombstones) are the plans fenced made before the cold
 * DELETE's allocation was cut (issue 26): the sent text byte for byte, its segments, where each parameter and the
 * token are bound, what is written, and every refusal's words. Generated DELETEs (800 in the build, 4,000 in the
 * long run: {@link LongRun}; and a few UPDATEs,
 * INSERTs and upserts, whose plans share the assembly), each planned with a token and with a NULL token, by the
 * lane and by the parser's path alone; their plans are hashed, and the hash is the one the code before the change
 * gave (recorded at db5ba54). Re-recorded when the allocation work was merged beside the lanes that plan DELETE ...
 * USING, INSERT ... SELECT and MERGE by position first (which change some of these plans on purpose): the merged
 * tree without the allocation work (6ad2759) gives this same hash, so the work still changes no plan.
 */
class TombstoneDeleteSentTextTest {

    /**
     * SHA-256 of every plan's description, in order, as the code before the allocation work plans them (6ad2759): of
     * the long run's 4,000 texts ({@link LongRun}).
     */
    private static final String PLANS_BEFORE = "f600b882b2e74ae9c285d7bf1531aa472a23ff2da810fcdbbf6c522970e7307e";

    /**
     * The same of the build's 800 texts (the first 800 of the long run's), recorded when the run was shortened, on the
     * code that gives {@link #PLANS_BEFORE} for the 4,000.
     */
    private static final String PLANS_BEFORE_SHORT = "6f6f707e640393f0fa059d529f1c3cf0799cfad90061f37523d053315962dc13";

    private static final List<String> COLUMNS = List.of("id", "a", "b", "n", "j", "d", "fence");

    @Test
    void generatedDeletesOfATombstoneTableArePlannedAsBefore() throws NoSuchAlgorithmException {
        List<ProtectedTable> tables = List.of(
                new ProtectedTable(TableName.parse("t"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("o"), "fence", FencingMode.OBSERVE),
                new ProtectedTable(TableName.parse("k"), "fence", FencingMode.ENFORCE),
                new ProtectedTable(TableName.parse("nk"), "fence", FencingMode.ENFORCE));
        Map<TableName, TableShape> shapes = Map.of(
                TableName.parse("t"), new TableShape(COLUMNS, List.of("id"), "t"),
                TableName.parse("o"), new TableShape(COLUMNS, List.of("id"), "o"),
                TableName.parse("k"), new TableShape(COLUMNS, List.of(), null));
        FencingTargets targets = FencingTargets.modelled(
                tables, Map.of(), Set.of("random", "nextval"), shapes, TableName.parse("fenced_tombstone"));
        SqlRewriter lane = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(5), true);
        SqlRewriter parser = new SqlRewriter(targets, RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(5), false);
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        int fenced = 0;
        int byLane = 0;
        int count = LongRun.cases(800, 4000);
        for (String sql : texts(new Random(26), count)) {
            for (boolean nullToken : new boolean[] {false, true}) {
                long before = lane.skeletonFirstPlans();
                RewritePlan fast = nullToken ? lane.planForNullToken(sql) : lane.plan(sql);
                byLane += lane.skeletonFirstPlans() > before ? 1 : 0;
                RewritePlan slow = nullToken ? parser.planForNullToken(sql) : parser.plan(sql);
                fenced += fast instanceof RewritePlan.Fenced ? 1 : 0;
                digest.update(describe(fast).getBytes(StandardCharsets.UTF_8));
                digest.update(describe(slow).getBytes(StandardCharsets.UTF_8));
            }
        }
        // the lane and the tombstone hand-over both had their share, or the hash shows little
        assertTrue(fenced > count * 3 / 4 && byLane > count / 2, "fenced " + fenced + ", by the lane " + byLane);
        assertEquals(
                LongRun.expected(PLANS_BEFORE_SHORT, PLANS_BEFORE),
                HexFormat.of().formatHex(digest.digest()));
    }

    /**
     * Everything a plan decides: the text, segments, parameter and token places, what it writes; a refusal's words.
     * The stale marker's nonce, random per runtime, is written as {@code <nonce>}.
     */
    static String describe(RewritePlan plan) {
        return described(plan).replace(StaleMarker.nonce(), "<nonce>");
    }

    private static String described(RewritePlan plan) {
        if (!(plan instanceof RewritePlan.Fenced f)) {
            return plan.getClass().getSimpleName() + " " + plan + "\n";
        }
        StringBuilder b = new StringBuilder("Fenced ").append(f.sql()).append('\n');
        for (String segment : f.segments()) {
            b.append("  segment ").append(segment).append('\n');
        }
        for (int p = 1; p <= f.userParameterCount(); p++) {
            b.append("  parameter ")
                    .append(p)
                    .append(' ')
                    .append(Arrays.toString(f.delegateIndexes(p)))
                    .append('\n');
        }
        return b.append("  token ")
                .append(Arrays.toString(f.tokenIndexes()))
                .append(" of ")
                .append(f.delegateParameterCount())
                .append(", ")
                .append(f.tables())
                .append(' ')
                .append(f.mode())
                .append(" relative ")
                .append(f.relativeUpdate())
                .append(" schema ")
                .append(f.schemaChange())
                .append(" domain ")
                .append(f.tokenDomain())
                .append(" required ")
                .append(f.tokenRequired())
                .append('\n')
                .toString();
    }

    private static final String[] TARGETS = {
        "t", "t", "t", "T", "\"t\"", "public.t", "t AS x", "t x", "t AS \"X\"", "public.t AS x", "o", "k", "nk", "u"
    };

    private static final String[] CONDITIONS = {
        "id = 1",
        "id = ?",
        "id = ? AND a = ?",
        "x.id = ?",
        "t.id = 1",
        "\"id\" = 1",
        "fence IS NULL",
        "b = 'it''s ?'",
        "b LIKE 'a\\%'",
        "b = E'e\\'' ?'",
        "b = 'back\\slash'",
        "b = $$? ' --$$",
        "b = $q$it's$q$",
        "b = 'x' || ?",
        "b = U&'\\0041'",
        "n::text = '1'",
        "CAST(n AS text) = ?",
        "(id = 1)",
        "NOT (id = 1 OR n IS NULL)",
        "n = - 1",
        "j @? '$.a'",
        "j ?| array['a']",
        "d BETWEEN {d '2020-01-01'} AND {d '2021-01-01'}",
        "a = {fn abs(-2)}",
        "id = 1 /* c ? ' */",
        "id = 1 -- c ?\n",
        "id=?",
        "coalesce(n, 0) > ?",
        "lower(b) = 'x'",
        "now() > d",
        "random() < 0.5",
        "id = (SELECT max(id) FROM s)",
        "id IN (SELECT id FROM s WHERE s.b = ?)",
        "EXISTS (SELECT 1 FROM o WHERE o.id = t.id)",
        "id IN (SELECT id FROM s FOR UPDATE SKIP LOCKED)",
        "id IN (SELECT id FROM s LIMIT 1)",
        "CURRENT OF c",
        "(j).returning = 1",
        "b ~ '^a'",
        "a BETWEEN 1 AND ?",
        "d > DATE '2020-01-01'",
        "b = 'é'",
        "\"b\" = 'ü?'"
    };

    private static final String[] TAILS = {
        "",
        "",
        "",
        "",
        " RETURNING *",
        " RETURNING id, fence",
        " RETURNING n AS returning",
        " RETURNING ?",
        ";",
        " USING s",
        " -- end"
    };

    /** A few other writes whose plans the change passes through (the assembly and pgjdbc's reading are shared). */
    private static final String[] OTHERS = {
        "UPDATE t SET a = ? WHERE id = ?",
        "UPDATE t SET a = a + 1 WHERE b = 'x\\y'",
        "UPDATE t x SET a = ?, b = E'\\n' WHERE x.id = ? RETURNING *",
        "INSERT INTO t (id, a) VALUES (?, ?), (2, 'q')",
        "INSERT INTO t (id, a) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
        "INSERT INTO t (id, a) SELECT id, a FROM s WHERE b = ?",
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "UPDATE k SET a = ? WHERE b = $$x$$"
    };

    static List<String> texts(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            if (random.nextInt(10) == 0) {
                out.add(pick(random, OTHERS));
                continue;
            }
            StringBuilder b = new StringBuilder(pick(random, "DELETE FROM ", "delete from ", "DELETE\nFROM\t"))
                    .append(pick(random, TARGETS));
            if (random.nextInt(6) != 0) {
                b.append(pick(random, " WHERE ", " where ", "\nWHERE\t", "/**/WHERE "))
                        .append(pick(random, CONDITIONS));
                int more = random.nextInt(4);
                for (int i = 0; i < more; i++) {
                    b.append(pick(random, " AND ", " OR ", "\n AND ")).append(pick(random, CONDITIONS));
                }
            }
            b.append(pick(random, TAILS));
            out.add(b.toString());
        }
        return out;
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
