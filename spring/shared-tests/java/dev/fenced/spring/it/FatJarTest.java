package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.it.support.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The case: a Boot fat jar run with {@code java -jar}, no agent. Its {@code @WithLease} method and its
 * {@code fenced.lease.listed.method} method run under their leases, and their writes to the protected table carry
 * the lease tokens. Runs where the build names the jar ({@code test.fenced.fatjar}, not a fenced.* key, which fenced would refuse: boot4-tests, after fatjar-app).
 */
@Tag("jvm-sensitive")
class FatJarTest {

    @Test
    void leaseMethodsRunUnderTheirLeasesInAFatJarWithoutTheAgent() throws Exception {
        runTheFatJar(List.of());
    }

    /**
     * With the agent attached to a fat jar, the agent cannot run lease methods (the driver is nested in the jar, not
     * on the class path at its start) and only propagates: the starter must run them, not leave them to the agent.
     */
    @Test
    void withTheAgentAttachedTheStarterStillRunsThemInAFatJar() throws Exception {
        String agent = System.getProperty("test.fenced.agent");
        assumeTrue(agent != null, "no agent jar configured for this Boot line");
        assertTrue(Files.isRegularFile(Path.of(agent)), "build agent/ first: " + agent);
        runTheFatJar(List.of("-javaagent:" + agent));
    }

    private static void runTheFatJar(List<String> jvmArgs) throws Exception {
        String jarPath = System.getProperty("test.fenced.fatjar");
        assumeTrue(jarPath != null, "no fat jar configured for this Boot line");
        Path jar = Path.of(jarPath);
        assertTrue(Files.isRegularFile(jar), "build spring/fatjar-app first (mvn verify builds it before boot4-tests): " + jar);

        String url = TestDatabase.create().rawUrl();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)");
            s.execute("INSERT INTO totals (restaurant_id, amount) VALUES (1, 100), (2, 200)");
        }
        Path out = Files.createTempFile("fenced-fatjar", ".log");
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", jar.toString(), "--spring.datasource.url=" + url, "--spring.main.banner-mode=off"));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the fat jar did not exit: " + read(out));
        } finally {
            p.destroyForcibly();
        }
        String log = read(out);
        assertEquals(0, p.exitValue(), log);
        long nightly = token(log, "withLease");
        long listed = token(log, "listed");
        assertTrue(nightly > 0 && listed > 0, log);
        assertTrue(listed > nightly, "two grants, in order: " + log);
        assertEquals(-1, token(log, "outside"), "no token outside the lease-bound calls");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT restaurant_id, last_token FROM totals ORDER BY 1")) {
            rs.next();
            assertEquals(nightly, rs.getLong(2), "the @WithLease write carried its lease's token");
            rs.next();
            assertEquals(listed, rs.getLong(2), "the config-listed method's write carried its lease's token");
        }
        Files.deleteIfExists(out);
    }

    private static long token(String log, String label) {
        Matcher m = Pattern.compile("^" + label + " token=(-?\\d+)$", Pattern.MULTILINE).matcher(log);
        assertTrue(m.find(), label + " missing from the output: " + log);
        return Long.parseLong(m.group(1));
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
