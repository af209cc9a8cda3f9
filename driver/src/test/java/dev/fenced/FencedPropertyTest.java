package dev.fenced;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The property enum is the single source of truth: consistent with itself and with docs/configuration.md. */
class FencedPropertyTest {

    @Test
    void everyPropertyIsDocumentedAndItsDefaultValid() {
        for (FencedProperty p : FencedProperty.values()) {
            assertTrue(p.key().startsWith(FencedProperty.PREFIX), p.key());
            assertFalse(p.description().isBlank(), p.key());
            if (p.defaultValue() != null && !p.defaultValue().isEmpty()) {
                assertEquals(p.defaultValue(), p.validate(p.defaultValue()), p.key());
            }
        }
    }

    @Test
    void familyKeysMatchTheirMembers() {
        assertEquals(
                FencedProperty.TABLE_MODE,
                FencedProperty.match("fenced.table.sales.totals.mode").property());
        assertEquals(
                "sales.totals",
                FencedProperty.match("fenced.table.sales.totals.mode").member());
        assertEquals(
                FencedProperty.LEASE_URL,
                FencedProperty.match("fenced.lease.url").property());
        assertEquals(
                "nightly", FencedProperty.match("fenced.lease.nightly.onBusy").member());
        assertEquals(null, FencedProperty.match("fenced.lease.nightly.onbusy"));
    }

    @Test
    void theConfigurationReferenceListsEveryKey() throws Exception {
        Path readme = Path.of("..", "docs", "configuration.md");
        assertTrue(Files.exists(readme), "docs/configuration.md in the repository");
        String text = Files.readString(readme);
        for (FencedProperty p : FencedProperty.values()) {
            assertTrue(text.contains("`" + p.key() + "`"), "docs/configuration.md documents " + p.key());
            if (p.defaultValue() != null && !p.defaultValue().isEmpty()) {
                assertTrue(
                        text.contains("| `" + p.key() + "` | `" + p.defaultValue() + "` |"),
                        "docs/configuration.md gives the default of " + p.key() + " as `" + p.defaultValue() + "`");
            }
        }
        assertNotNull(text);
    }
}
