package dev.fenced.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.fenced.FencingMode;
import dev.fenced.config.ProtectedTable;
import dev.fenced.config.TableName;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Equal targets decide alike, so a catalog re-read that finds the same ones keeps the plan cache. */
class FencingTargetsTest {

    private static FencingTargets targets(Map<TableName, String> indirect, Set<String> volatileFunctions, String column) {
        return new FencingTargets(List.of(new ProtectedTable(TableName.parse("totals"), column, FencingMode.ENFORCE)),
                indirect, volatileFunctions);
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
        assertNotEquals(a, new FencingTargets(List.of(
                new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.OBSERVE)), Map.of(), Set.of()));
    }
}
