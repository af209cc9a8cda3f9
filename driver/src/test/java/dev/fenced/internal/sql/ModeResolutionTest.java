package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The mode of a refusal is the strictest of every protected name the text reaches, whatever order the
 * names come in; overlapping entries take the strictest; DDL the rewriter must see first is refused.
 * Texts are generated from a fixed seed: refused constructs around random orders of observed, enforced
 * and unprotected names.
 */
class ModeResolutionTest {

    private static final List<String> OBSERVED = List.of("obs", "obs2");
    private static final List<String> ENFORCED = List.of("enf", "enf2");
    private static final List<String> PLAIN = List.of("plain", "other");

    private final SqlRewriter rewriter = new SqlRewriter(
            FencingTargets.modelled(
                    List.of(
                            new ProtectedTable(TableName.parse("obs"), "last_token", FencingMode.OBSERVE),
                            new ProtectedTable(TableName.parse("obs2"), "last_token", FencingMode.OBSERVE),
                            new ProtectedTable(TableName.parse("enf"), "last_token", FencingMode.ENFORCE),
                            new ProtectedTable(TableName.parse("enf2"), "last_token", FencingMode.ENFORCE),
                            new ProtectedTable(TableName.parse("archive.t"), "last_token", FencingMode.OBSERVE),
                            new ProtectedTable(TableName.parse("t"), "last_token", FencingMode.ENFORCE)),
                    Map.of(),
                    Set.of(),
                    Map.of(),
                    null),
            RelativeUpdatePolicy.WARN,
            Duration.ofSeconds(2));

    /** A refused construct naming {@code names} in order, each a protected or plain table. */
    private static String refusedText(Random random, List<String> names) {
        return switch (random.nextInt(4)) {
            case 0 -> "TRUNCATE " + String.join(", ", names);
            // (MERGE is fenced now; a DELETE ... WHERE CURRENT OF is still refused)
            case 1 ->
                "WITH " + cteList(names.subList(0, names.size() - 1)) + " DELETE FROM " + names.get(names.size() - 1)
                        + " WHERE CURRENT OF c";
            case 2 ->
                "WITH " + cteNamed(names.subList(0, names.size() - 1)) + " DELETE FROM " + names.get(names.size() - 1)
                        + " WHERE CURRENT OF c";
            default ->
                "COPY " + names.get(names.size() - 1) + " FROM STDIN; SELECT * FROM "
                        + String.join(", ", names.subList(0, names.size() - 1));
        };
    }

    private static String cteList(List<String> names) {
        List<String> ctes = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            ctes.add("q" + i + " AS (SELECT * FROM " + names.get(i) + ")");
        }
        return ctes.isEmpty() ? "q AS (SELECT 1)" : String.join(", ", ctes);
    }

    /** CTEs merely named like the tables. */
    private static String cteNamed(List<String> names) {
        List<String> ctes = new ArrayList<>();
        for (String n : names) {
            ctes.add(n + " AS (SELECT 1)");
        }
        return ctes.isEmpty() ? "q AS (SELECT 1)" : String.join(", ", ctes);
    }

    @Test
    void anyEnforcedNameMakesTheRefusalEnforcedInAnyOrder() {
        Random random = new Random(12);
        for (int run = 0; run < 400; run++) {
            List<String> names = new ArrayList<>();
            int n = 2 + random.nextInt(3);
            boolean enforced = false;
            boolean observed = false;
            for (int i = 0; i < n; i++) {
                int kind = random.nextInt(3);
                List<String> from = kind == 0 ? OBSERVED : kind == 1 ? ENFORCED : PLAIN;
                names.add(from.get(random.nextInt(from.size())));
                enforced |= kind == 1;
                observed |= kind == 0;
            }
            if (!enforced && !observed) {
                continue;
            }
            Collections.shuffle(names, random);
            // the statement's own target is a protected one (any of them), the rest are read or listed
            int target = names.size() - 1;
            while (PLAIN.contains(names.get(target))) {
                target--;
            }
            Collections.swap(names, target, names.size() - 1);
            String sql = refusedText(random, names);
            RewritePlan plan = rewriter.plan(sql);
            assertTrue(plan instanceof RewritePlan.Refused, () -> sql + " -> " + plan);
            FencingMode expected = enforced ? FencingMode.ENFORCE : FencingMode.OBSERVE;
            assertEquals(expected, ((RewritePlan.Protected) plan).mode(), sql);
        }
    }

    @Test
    void overlappingEntriesTakeTheStrictestMode() {
        for (String target : new String[] {"t", "public.t", "\"t\""}) {
            RewritePlan plan = rewriter.plan("UPDATE " + target + " SET amount = 1");
            assertTrue(plan instanceof RewritePlan.Fenced, plan::toString);
            assertEquals(FencingMode.ENFORCE, ((RewritePlan.Protected) plan).mode(), target);
        }
        assertEquals(
                FencingMode.ENFORCE,
                ((RewritePlan.Protected) rewriter.plan("TRUNCATE archive.t")).mode(),
                "archive.t is matched by the observed archive.t and the enforced t");
    }

    @Test
    void ddlThatRewritesProtectedDataOrTokensIsRefused() {
        for (String sql : new String[] {
            "ALTER TABLE enf ALTER COLUMN amount TYPE text USING 'x'",
            "ALTER TABLE enf ALTER last_token TYPE bigint USING 0",
            "ALTER TABLE IF EXISTS ONLY enf ALTER COLUMN amount SET DATA TYPE numeric",
            "ALTER TABLE enf ALTER COLUMN last_token SET DEFAULT 9",
            "ALTER TABLE enf ALTER COLUMN last_token DROP NOT NULL",
            "ALTER TABLE enf DROP COLUMN last_token",
            "ALTER TABLE enf DROP last_token",
            "ALTER TABLE enf RENAME COLUMN last_token TO x",
            "ALTER TABLE enf RENAME last_token TO x",
            "ALTER TABLE enf ALTER COLUMN \"last_token\" SET DEFAULT 1"
        }) {
            RewritePlan plan = rewriter.plan(sql);
            assertTrue(plan instanceof RewritePlan.Refused, () -> sql + " -> " + plan);
            assertEquals(FencingMode.ENFORCE, ((RewritePlan.Protected) plan).mode(), sql);
        }
        for (String sql : new String[] {
            "ALTER TABLE enf ADD COLUMN note text",
            "ALTER TABLE enf ADD COLUMN IF NOT EXISTS last_token bigint",
            "ALTER TABLE enf ADD last_token bigint",
            "ALTER TABLE enf ALTER COLUMN amount SET DEFAULT 0",
            "ALTER TABLE plain ALTER COLUMN amount TYPE text"
        }) {
            assertTrue(rewriter.plan(sql) instanceof RewritePlan.Passthrough, sql);
        }
    }

    @Test
    void aWriteAfterDdlOnAProtectedTableInOneTextIsRefused() {
        for (String write : new String[] {
            "UPDATE v SET amount = 0",
            "INSERT INTO v (id) VALUES (1)",
            "DELETE FROM v",
            "TRUNCATE v",
            "EXECUTE p",
            "CALL p()",
            "WITH d AS (DELETE FROM v) SELECT 1"
        }) {
            for (String ddl : new String[] {
                "CREATE VIEW v AS SELECT * FROM enf",
                "ALTER TABLE v INHERIT enf",
                "CREATE TABLE v PARTITION OF enf DEFAULT"
            }) {
                String sql = ddl + "; " + write;
                RewritePlan plan = rewriter.plan(sql);
                assertTrue(plan instanceof RewritePlan.Refused, () -> sql + " -> " + plan);
            }
        }
        assertTrue(
                rewriter.plan("CREATE VIEW v AS SELECT * FROM enf; SELECT * FROM v")
                        instanceof RewritePlan.Passthrough);
        assertTrue(
                rewriter.plan("CREATE INDEX ON enf (amount); CREATE INDEX ON enf (id)")
                        instanceof RewritePlan.Passthrough);
    }

    @Test
    void everyDoBlockIsRefusedWhateverItNames() {
        for (String sql : new String[] {
            "DO $$ BEGIN EXECUTE 'UPDATE ' || 'en' || 'f SET amount = 0'; END $$",
            "do 'begin null; end'",
            "SELECT 1; DO LANGUAGE plpgsql $x$ BEGIN END $x$"
        }) {
            RewritePlan plan = rewriter.plan(sql);
            assertTrue(plan instanceof RewritePlan.Refused, () -> sql + " -> " + plan);
            assertEquals(FencingMode.ENFORCE, ((RewritePlan.Protected) plan).mode(), sql);
        }
        assertTrue(rewriter.plan("SELECT 'do' AS x, done FROM documents") instanceof RewritePlan.Passthrough);
    }
}
