package dev.fenced.spring.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** The Spring environment's fenced.* keys, as fenced names them, and checked as the driver checks them. */
class FencedSettingsTest {

    private static StandardEnvironment env(Map<String, Object> properties) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return env;
    }

    @Test
    void kebabCaseAndYamlListsBecomeFencedKeys() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("fenced.tables[0]", "totals");
        p.put("fenced.tables[1]", "sales.orders");
        p.put("fenced.missing-tables", "warn");
        p.put("fenced.lease.create-table", "false");
        p.put("fenced.lease.nightly.method", "com.acme.Jobs#run");
        p.put("fenced.table.sales.orders.mode", "observe");
        FencedSettings s = FencedSettings.from(env(p));
        assertEquals("totals,sales.orders", s.springKeys().get("fenced.tables"));
        assertEquals("warn", s.springKeys().get("fenced.missingTables"));
        assertEquals(false, s.config().leaseCreateTable());
        assertEquals("run", s.config().leaseMethods().get("nightly").methodName());
        assertEquals("observe", s.springKeys().get("fenced.table.sales.orders.mode"));
    }

    @Test
    void anUnknownKeyIsRefusedWithTheDriversMessage() {
        FencedConfigurationException e = assertThrows(
                FencedConfigurationException.class, () -> FencedSettings.from(env(Map.of("fenced.tabels", "totals"))));
        assertTrue(
                e.getMessage()
                        .contains(
                                "unknown key 'fenced.tabels' in the Spring environment (did you mean fenced.tables?)"),
                e.getMessage());
    }

    @Test
    void aBadValueNamesTheKey() {
        FencedConfigurationException e = assertThrows(
                FencedConfigurationException.class, () -> FencedSettings.from(env(Map.of("fenced.mode", "enforcing"))));
        assertTrue(e.getMessage().contains("fenced.mode in the Spring environment"), e.getMessage());
    }
}
