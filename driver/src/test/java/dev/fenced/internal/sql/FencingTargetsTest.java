package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Equal targets decide alike, so a catalog re-read that finds the same ones keeps the plan cache. */
class FencingTargetsTest {

    private static FencingTargets targets(
            Map<TableName, String> indirect, Set<String> volatileFunctions, String column) {
        return FencingTargets.modelled(
                List.of(new ProtectedTable(TableName.parse("totals"), column, FencingMode.ENFORCE)),
                indirect,
                volatileFunctions,
                Map.of(),
                null);
    }

    @Test
    void equalWhenTablesViewsAndFunctionsAreTheSame() {
        Map<TableName, String> views = Map.of(TableName.parse("public.v"), "view public.v reads a protected table");
        FencingTargets a = targets(views, Set.of("f"), "last_token");
        FencingTargets b = targets(Map.copyOf(views), Set.of("f"), "last_token");
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
    }

    @Test
    void differentWhenAnythingARewriteDependsOnDiffers() {
        FencingTargets a = targets(Map.of(), Set.of(), "last_token");
        assertNotEquals(a, targets(Map.of(TableName.parse("public.v"), "view"), Set.of(), "last_token"));
        assertNotEquals(a, targets(Map.of(), Set.of("my_volatile"), "last_token"));
        assertNotEquals(a, targets(Map.of(), Set.of(), "fence"));
        assertNotEquals(
                a,
                FencingTargets.modelled(
                        List.of(new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.OBSERVE)),
                        Map.of(),
                        Set.of(),
                        Map.of(),
                        null));
    }

    /** What mayMention answered before it read the text in one pass: each needle searched for in turn. */
    private static boolean oneNeedleAtATime(List<String> names, String sql) {
        if (names.isEmpty()) {
            return false;
        }
        for (String name : names) {
            if (FencingTargets.containsIgnoreCase(sql, name.toLowerCase(java.util.Locale.ROOT))) {
                return true;
            }
        }
        return FencingTargets.containsIgnoreCase(sql, "u&");
    }

    @Test
    void theOnePassPreFilterAnswersAsOneSearchPerName() {
        List<List<String>> nameSets = List.of(
                List.of(),
                List.of("totals"),
                List.of("orders", "order_lines", "invoices"),
                List.of("größe", "ıx", "ſtock", "kelvin", "İd", "t"),
                List.of("ab", "ba", "aab"));
        char[] alphabet = "abiklnorstux_& ;.\"'ABIKLNORSTUX&ıİſKßöÖ0".toCharArray();
        Random random = new Random(42);
        for (List<String> names : nameSets) {
            FencingTargets targets = FencingTargets.modelled(
                    names.stream()
                            .map(n -> new ProtectedTable(new TableName(null, n), "last_token", FencingMode.ENFORCE))
                            .toList(),
                    Map.of(),
                    Set.of(),
                    Map.of(),
                    null);
            for (int run = 0; run < 50_000; run++) {
                StringBuilder sql = new StringBuilder();
                int length = random.nextInt(24);
                for (int i = 0; i < length; i++) {
                    sql.append(alphabet[random.nextInt(alphabet.length)]);
                }
                if (!names.isEmpty() && random.nextInt(4) == 0) { // plant a name, in mixed case
                    String n = names.get(random.nextInt(names.size()));
                    StringBuilder planted = new StringBuilder();
                    for (char ch : n.toCharArray()) {
                        planted.append(random.nextBoolean() ? Character.toUpperCase(ch) : ch);
                    }
                    sql.insert(random.nextInt(sql.length() + 1), planted);
                }
                String text = sql.toString();
                assertEquals(oneNeedleAtATime(names, text), targets.mayMention(text), () -> names + " in " + text);
            }
        }
    }

    @Test
    void thePreFilterFindsNamesInAnyCaseAndUnicodeEscapes() {
        FencingTargets targets = FencingTargets.modelled(
                List.of(
                        new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE),
                        new ProtectedTable(TableName.parse("sales.orders"), "last_token", FencingMode.ENFORCE)),
                Map.of(TableName.parse("public.big_view"), "view"),
                Set.of(),
                Map.of(),
                null);
        assertTrue(targets.mayMention("UPDATE TOTALS SET amount = 1"));
        assertTrue(targets.mayMention("delete from sales.Orders"));
        assertTrue(targets.mayMention("UPDATE big_VIEW SET x = 1"));
        assertTrue(targets.mayMention("UPDATE U&\"\\0074otals\" SET amount = 1"));
        assertFalse(targets.mayMention("UPDATE plain SET amount = ? WHERE id = ?"));
        assertFalse(FencingTargets.of(List.of()).mayMention("UPDATE totals SET amount = 1"));
    }
}
