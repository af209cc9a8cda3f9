package dev.fenced.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.FencingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    private static FencedConfig resolve(Map<String, String> first, Map<String, String> second) throws FencingException {
        return ConfigLoader.resolve(List.of(
                new ConfigSource("the JDBC URL", first), new ConfigSource("the connection properties", second)));
    }

    /** The agent's shortcut at start: no source, no configuration read (issue 25). */
    @Test
    void noStandardSourceUntilAFencedSystemPropertyIsSet() {
        boolean fencedEnvironment = false;
        for (String name : System.getenv().keySet()) {
            fencedEnvironment |= name.startsWith("FENCED_");
        }
        assumeFalse(fencedEnvironment, "this JVM's environment configures fenced");
        assumeTrue(ConfigLoader.class.getClassLoader().getResource(ConfigLoader.RESOURCE) == null, "fenced.properties");
        assertTrue(ConfigLoader.noStandardSource());
        System.setProperty("fenced.mode", "observe");
        try {
            assertFalse(ConfigLoader.noStandardSource());
        } finally {
            System.clearProperty("fenced.mode");
        }
    }

    @Test
    void earlierSourcesWin() throws FencingException {
        FencedConfig c = resolve(Map.of("fenced.mode", "observe"), Map.of("fenced.mode", "off", "fenced.tables", "t"));
        assertEquals(FencingMode.OBSERVE, c.mode());
        assertEquals(FencingMode.OBSERVE, c.tables().get(0).mode());
    }

    @Test
    void defaultsApply() throws FencingException {
        FencedConfig c = FencedConfig.of("fenced.tables", "totals");
        assertEquals("last_token", c.column());
        assertEquals(FencingMode.ENFORCE, c.mode());
        assertEquals(RelativeUpdatePolicy.WARN, c.relativeUpdates());
        assertEquals(Duration.ofSeconds(2), c.parseTimeout());
    }

    @Test
    void tableNamesFoldLikePostgres() throws FencingException {
        FencedConfig c = FencedConfig.of("fenced.tables", "Totals, Sales.Orders, \"Mixed\".\"Case\"");
        assertEquals(
                List.of(
                        new TableName(null, "totals"),
                        new TableName("sales", "orders"),
                        new TableName("Mixed", "Case")),
                c.tables().stream().map(ProtectedTable::name).toList());
    }

    @Test
    void perTableOverridesApplyToThatTableOnly() throws FencingException {
        FencedConfig c = FencedConfig.of(
                "fenced.tables",
                "totals,sales.orders",
                "fenced.table.sales.orders.mode",
                "observe",
                "fenced.table.totals.column",
                "Fence");
        assertEquals(FencingMode.ENFORCE, c.tables().get(0).mode());
        assertEquals("fence", c.tables().get(0).column());
        assertEquals(FencingMode.OBSERVE, c.tables().get(1).mode());
        assertEquals("last_token", c.tables().get(1).column());
    }

    @Test
    void anOverrideForAnUnlistedTableIsAnError() {
        FencingException e = assertThrows(
                FencingException.class,
                () -> FencedConfig.of("fenced.tables", "totals", "fenced.table.total.mode", "off"));
        assertTrue(
                e.getMessage().contains("fenced.table.total.mode configures table total, which is not listed"),
                e.getMessage());
    }

    @Test
    void unknownKeysAndBadValuesNameTheSource() {
        FencingException unknown =
                assertThrows(FencingException.class, () -> resolve(Map.of(), Map.of("fenced.colum", "x")));
        assertTrue(
                unknown.getMessage()
                        .contains("unknown key 'fenced.colum' in the connection properties"
                                + " (did you mean fenced.column?)"),
                unknown.getMessage());
        FencingException bad =
                assertThrows(FencingException.class, () -> resolve(Map.of("fenced.parseTimeout", "soon"), Map.of()));
        assertTrue(
                bad.getMessage().contains("fenced.parseTimeout in the JDBC URL: expected a positive duration"),
                bad.getMessage());
        assertThrows(FencingException.class, () -> FencedConfig.of("fenced.tables", "a,a"));
        assertThrows(FencingException.class, () -> FencedConfig.of("fenced.tables", "bad name"));
    }

    @Test
    void leaseFamiliesNeedAMethod() throws FencingException {
        FencedConfig c = FencedConfig.of(
                "fenced.lease.nightly.method",
                "com.acme.Jobs#runNightly",
                "fenced.lease.nightly.ttl",
                "45s",
                "fenced.lease.nightly.onBusy",
                "wait");
        LeaseMethod m = c.leaseMethods().get("nightly");
        assertEquals("com.acme.Jobs", m.className());
        assertEquals("runNightly", m.methodName());
        assertEquals(Duration.ofSeconds(45), m.ttl());
        assertEquals(LeaseMethod.OnBusy.WAIT, m.onBusy());
        FencingException e = assertThrows(FencingException.class, () -> FencedConfig.of("fenced.lease.x.ttl", "5s"));
        assertTrue(e.getMessage().contains("no fenced.lease.x.method"), e.getMessage());
        assertThrows(FencingException.class, () -> FencedConfig.of("fenced.lease.x.method", "NoHash"));
    }

    @Test
    void environmentVariablesUseTheUpperCaseForm() throws FencingException {
        Map<String, String> env = ConfigLoader.environment(Map.of(
                "FENCED_MODE",
                "observe",
                "FENCED_RELATIVEUPDATES",
                "refuse",
                "FENCED_LEASE_NIGHTLY_TTL",
                "10s",
                "FENCED_TEST_JDBC_URL",
                "ignored",
                "PATH",
                "/bin"));
        assertEquals(
                Map.of("fenced.mode", "observe", "fenced.relativeUpdates", "refuse", "fenced.lease.nightly.ttl", "10s"),
                env);
    }

    @Test
    void aConfigurationFileIsReadAndCheckedLikeTheRest(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fenced.properties");
        Files.writeString(file, "fenced.tables=totals\nfenced.mode=observe\n");
        FencedConfig c = ConfigLoader.forAgent(file);
        assertEquals(FencingMode.OBSERVE, c.mode());
        Files.writeString(file, "fenced.tables=totals\nhibernate.x=1\n");
        FencingException e = assertThrows(FencingException.class, () -> ConfigLoader.forAgent(file));
        assertTrue(e.getMessage().contains("'hibernate.x'"), e.getMessage());
        FencingException missing =
                assertThrows(FencingException.class, () -> ConfigLoader.forAgent(dir.resolve("nope.properties")));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    }

    @Test
    void aKeyGivenTwiceInOneFileIsAnError(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fenced.properties");
        Files.writeString(file, "fenced.tables=totals\nfenced.mode=observe\nfenced.tables=orders\n");
        FencingException e = assertThrows(FencingException.class, () -> ConfigLoader.forAgent(file));
        assertTrue(e.getMessage().contains("fenced.tables given twice in"), e.getMessage());
    }

    @Test
    void zeroAndNegativeDurationsAreRefusedInEveryForm() {
        for (String bad : new String[] {"PT0S", "PT-5S", "pt0.000s", "P0D", "0s", "0ms", "-5s", "PT-0.001S"}) {
            FencingException e =
                    assertThrows(FencingException.class, () -> FencedConfig.of("fenced.parseTimeout", bad), bad);
            assertTrue(e.getMessage().contains("positive duration"), e.getMessage());
        }
        for (String good : new String[] {"PT0.5S", "PT2S", "1ms", "2m"}) {
            assertTrue(FencedProperty.parseDuration(good).toNanos() > 0, good);
        }
    }

    @Test
    void twoEnvironmentVariablesSpellingOneKeyAreAnError() {
        FencingException e = assertThrows(
                FencingException.class,
                () -> ConfigLoader.environment(Map.of("FENCED_TABLES", "totals", "FENCED_tables", "orders")));
        assertTrue(e.getMessage().contains("fenced.tables given twice in the environment"), e.getMessage());
    }
}
