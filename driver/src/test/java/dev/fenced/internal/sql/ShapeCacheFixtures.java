package dev.fenced.internal.sql;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the shape cache's seeded tests share ({@link ShapeCacheTest}, {@link ShapeCacheAttackTest}): a rewriter over
 * a modelled catalog, statement templates whose {@code $K} slots take literals, and how a plan served through the
 * cache is compared with the full rewrite's. Each test keeps its own statements and literal pools: they are its
 * inputs, and its seeded runs are reproducible only with them.
 */
final class ShapeCacheFixtures {

    private ShapeCacheFixtures() {}

    /** {@code table} as the catalog models it: these columns, primary key {@code id}. */
    record Modelled(ProtectedTable table, List<String> columns) {}

    /** A rewriter over these tables, relative updates allowed. */
    static SqlRewriter rewriter(Modelled... tables) {
        List<ProtectedTable> protectedTables = new ArrayList<>();
        Map<TableName, TableShape> shapes = new LinkedHashMap<>();
        for (Modelled m : tables) {
            protectedTables.add(m.table());
            shapes.put(m.table().name(), new TableShape(m.columns(), List.of("id"), null));
        }
        return new SqlRewriter(
                FencingTargets.modelled(protectedTables, Map.of(), Set.of(), shapes, null),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(5));
    }

    /** The kinds of {@code statement}'s slots, in order: each {@code $K} whose K is one of {@code kinds}. */
    static List<Character> slots(String statement, String kinds) {
        List<Character> slots = new ArrayList<>();
        for (int i = 0; i + 1 < statement.length(); i++) {
            if (isSlot(statement, i, kinds)) {
                slots.add(statement.charAt(++i));
            }
        }
        return slots;
    }

    /** {@code statement} with its slots (as {@link #slots} finds them) replaced by {@code values}, in order. */
    static String fill(String statement, String kinds, List<String> values) {
        StringBuilder b = new StringBuilder();
        int slot = 0;
        for (int i = 0; i < statement.length(); i++) {
            if (isSlot(statement, i, kinds)) {
                b.append(values.get(slot++));
                i++;
            } else {
                b.append(statement.charAt(i));
            }
        }
        return b.toString();
    }

    private static boolean isSlot(String statement, int i, String kinds) {
        return statement.charAt(i) == '$' && i + 1 < statement.length() && kinds.indexOf(statement.charAt(i + 1)) >= 0;
    }

    /**
     * How the plan served through the cache ({@code got}) differs from the full rewrite's ({@code want}), or null when
     * it does not: the same fenced text, or the same pass-through or refusal (same table and reason).
     */
    static @Nullable String divergence(RewritePlan want, RewritePlan got) {
        if (want instanceof RewritePlan.Fenced w) {
            if (!(got instanceof RewritePlan.Fenced g)) {
                return "full: fenced " + w.sql() + "\n shaped: " + got;
            }
            return w.sameAs(g) ? null : "full:   " + w.sql() + "\n shaped: " + g.sql();
        }
        return want.equals(got) ? null : "full: " + want + "\n shaped: " + got;
    }
}
