package dev.fenced.internal.spring.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedProperty;
import org.junit.jupiter.api.Test;

class MetadataGeneratorTest {

    @Test
    void theMetadataListsEveryKeyOnce() {
        String json = MetadataGenerator.json();
        for (FencedProperty p : FencedProperty.values()) {
            String name = p.isFamily() ? p.key().substring(0, p.key().indexOf('<') - 1) : p.key();
            assertTrue(json.contains("\"name\":\"" + name + "\""), "metadata names " + name);
        }
        assertTrue(json.contains("{\"name\":\"fenced.mode\",\"values\":[{\"value\":\"enforce\"}"), json);
    }
}
