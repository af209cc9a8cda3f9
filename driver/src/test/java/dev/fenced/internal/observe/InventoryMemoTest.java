package dev.fenced.internal.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.WriterKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Long statement texts (a bulk INSERT with literal values) must not be kept by the per-text memo. */
class InventoryMemoTest {

    @Test
    void longTextsAreShapedButNotKept() {
        Inventory inventory = Inventory.get();
        inventory.clear();
        Inventory.Settings settings = new Inventory.Settings(true, List.of(), 100);
        String values = "(1, 'x'),".repeat(10_000);
        for (int i = 0; i < 50; i++) {
            inventory.record(
                    settings,
                    WriterKind.NO_TOKEN,
                    "totals",
                    "no token is bound",
                    "INSERT INTO totals VALUES " + values + "(" + i + ", 'y')");
        }
        assertEquals(1, inventory.writers().size(), "one shape, one call site");
        assertTrue(
                inventory.memoizedChars() <= Inventory.MEMO_TEXT_LIMIT,
                "memo keeps " + inventory.memoizedChars() + " chars of statement text");
        inventory.clear();
    }
}
