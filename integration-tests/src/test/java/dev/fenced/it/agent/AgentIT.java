package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedDriver;
import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent in child JVMs started with {@code -javaagent}: a job that knows nothing of fencing runs under a
 * lease named in configuration, and every thread it hands work to writes with that lease's token.
 */
@Tag("jvm-sensitive")
class AgentIT {

    private static final Duration CHILD = Duration.ofSeconds(90);
    private static final String METHOD = "fenced.lease.nightly.method=" + NightlyJob.class.getName() + "#run";
    private static final boolean VIRTUAL = Runtime.version().feature() >= 21;

    static TestDatabase db;
    static String url;

    @TempDir
    Path dir;

    @BeforeAll
    static void database() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL DEFAULT 0,"
                + " last_token bigint)");
        url = db.fencedUrl("fenced.tables=totals");
    }

    @BeforeEach
    void rows() {
        db.execute("TRUNCATE totals", "INSERT INTO totals (restaurant_id) SELECT generate_series(1, 9)");
    }

    private Path config(String... lines) throws IOException {
        Path file = Files.createTempFile(dir, "fenced", ".properties");
        Files.write(file, List.of(lines));
        return file;
    }

    private static Long lastToken(int restaurant) {
        long v = db.queryLong("SELECT coalesce(last_token, -1) FROM totals WHERE restaurant_id = " + restaurant);
        return v < 0 ? null : v;
    }

    /** where → token, from the child's {@code token <where> <n>} lines. */
    private static Map<String, String> tokens(ChildJvm child) {
        Map<String, String> m = new TreeMap<>();
        for (String l : child.lines("token ")) {
            String[] p = l.split(" ");
            m.put(p[0], p[1]);
        }
        return m;
    }

    @Test
    void aJobListedInConfigurationRunsUnderItsLeaseOnEveryThreadItUses() throws Exception {
        Path cfg = config(METHOD, "fenced.lease.nightly.ttl=20s");
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            assertEquals(List.of("true"), child.lines("ran "));
            Map<String, String> tokens = tokens(child);
            List<String> expected = new ArrayList<>(List.of("async", "caller", "pool"));
            if (VIRTUAL) {
                expected.add("virtual");
            }
            assertEquals(expected, new ArrayList<>(tokens.keySet()));
            Set<String> distinct = new HashSet<>(tokens.values());
            assertEquals(1, distinct.size(), "one token everywhere: " + tokens);
            long token = Long.parseLong(distinct.iterator().next());
            assertTrue(token > 0);
            assertEquals(token, lastToken(1), "caller");
            assertEquals(token, lastToken(2), "fixed thread pool");
            assertEquals(token, lastToken(3), "CompletableFuture.runAsync");
            if (VIRTUAL) {
                assertEquals(token, lastToken(4), "virtual thread");
            }
            assertTrue(
                    child.stderr().stream().noneMatch(l -> l.contains("Unsafe") || l.contains("ERROR")),
                    () -> "stderr: " + child.stderr());
        }
    }

    @Test
    void withoutTheAgentTheSameJobIsRefusedInEnforceMode() throws Exception {
        try (ChildJvm child = AgentChild.start(null, List.of(), JobMain.class, "writes", url)) {
            assertEquals(3, child.await(CHILD));
            assertEquals(Map.of("caller", "none"), tokens(child));
            String error = child.lines("error ").get(0);
            assertTrue(error.startsWith("dev.fenced.UnfencedWriteException"), error);
            assertEquals(null, lastToken(1));
        }
    }

    @Test
    void twoProcessesRunningTheJobAtOnceOneRunsTheOtherSkips() throws Exception {
        Path cfg = config(METHOD, "fenced.lease.nightly.ttl=30s", "fenced.lease.url=" + url);
        try (ChildJvm first = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "hold", url)) {
            first.awaitLine(CHILD, "holding");
            try (ChildJvm second = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
                assertEquals(0, second.await(CHILD), () -> "stderr: " + second.stderr());
                assertEquals(List.of("false"), second.lines("ran "), "the second process skipped the job");
                assertEquals(Map.of(), tokens(second), "its body never ran");
            }
            first.send("go");
            assertEquals(0, first.await(CHILD), () -> "stderr: " + first.stderr());
            assertEquals(List.of("true"), first.lines("ran "));
            long token = Long.parseLong(tokens(first).get("caller"));
            assertEquals(token, lastToken(1));
            assertEquals(1001, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 1"));
        }
    }

    @Test
    void withOnBusyFailTheSecondProcessFailsNamingTheLease() throws Exception {
        Path cfg = config(METHOD, "fenced.lease.nightly.onBusy=fail");
        try (ChildJvm first = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "hold", url)) {
            first.awaitLine(CHILD, "holding");
            try (ChildJvm second = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
                assertEquals(3, second.await(CHILD));
                assertEquals(
                        List.of("java.lang.IllegalStateException fenced: lease 'nightly' is held elsewhere; "
                                + NightlyJob.class.getName() + "#run did not run"),
                        second.lines("error "));
                assertEquals(Map.of(), tokens(second));
            }
            first.send("go");
            assertEquals(0, first.await(CHILD));
        }
    }

    @Test
    void withOnBusyWaitTheSecondProcessRunsAfterTheFirstWithANewerToken() throws Exception {
        Path cfg = config(METHOD, "fenced.lease.nightly.onBusy=wait", "fenced.lease.nightly.ttl=30s");
        try (ChildJvm first = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "hold", url)) {
            first.awaitLine(CHILD, "holding");
            try (ChildJvm second = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
                second.awaitLine(CHILD, "main started");
                first.send("go");
                assertEquals(0, first.await(CHILD));
                assertEquals(0, second.await(CHILD), () -> "stderr: " + second.stderr());
                long firstToken = Long.parseLong(tokens(first).get("caller"));
                long secondToken = Long.parseLong(tokens(second).get("caller"));
                assertTrue(secondToken > firstToken, firstToken + " then " + secondToken);
                assertEquals(secondToken, lastToken(1));
            }
        }
    }

    @Test
    void nestedAndRecursiveCallsRunInsideTheLeaseTheThreadHolds() throws Exception {
        Path cfg = config("fenced.lease.deep.method=" + NightlyJob.class.getName() + "#nested");
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "nested", url)) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            assertEquals(List.of("3"), child.lines("levels "));
            Map<String, String> tokens = tokens(child);
            assertEquals(3, tokens.size(), tokens::toString);
            assertEquals(1, new HashSet<>(tokens.values()).size(), "one lease for all levels: " + tokens);
            assertNotEquals("none", tokens.get("nested-0"));
        }
    }

    @Test
    void aPooledWorkerThatRanAFencedTaskCarriesNoTokenAfterwards() throws Exception {
        Path cfg = config(METHOD);
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "pooled", url)) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            String pooled = tokens(child).get("pool");
            assertNotEquals("none", pooled, "the fenced task had the token");
            assertEquals(
                    List.of("none dev.fenced.UnfencedWriteException"),
                    child.lines("afterwards "),
                    "the same worker, afterwards, has no token and its protected write is refused");
            assertEquals(Long.parseLong(pooled), lastToken(2));
        }
    }

    @Test
    void anUnknownKeyStopsTheJvmAtStart() throws Exception {
        assertStartRefused(
                config(METHOD, "fenced.lease.nightly.methd=x.Y#z"), "unknown key 'fenced.lease.nightly.methd'");
    }

    @Test
    void aMethodThatDoesNotExistStopsTheJvmAtStart() throws Exception {
        assertStartRefused(
                config("fenced.lease.nightly.method=" + NightlyJob.class.getName() + "#runNightly"),
                "declares no method with a body named 'runNightly'");
        assertStartRefused(
                config("fenced.lease.nightly.method=com.example.Missing#run"),
                "class com.example.Missing is not on the application class path");
    }

    @Test
    void aBadTtlStopsTheJvmAtStart() throws Exception {
        assertStartRefused(config(METHOD, "fenced.lease.nightly.ttl=soon"), "fenced.lease.nightly.ttl");
    }

    @Test
    void theAgentCanBeTurnedOff() throws Exception {
        Path cfg = config(METHOD, "fenced.agent.enabled=false");
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
            assertEquals(3, child.await(CHILD));
            assertTrue(child.lines("error ").get(0).startsWith("dev.fenced.UnfencedWriteException"));
        }
    }

    private static void assertStartRefused(Path cfg, String message) throws Exception {
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
            int status = child.await(CHILD);
            assertEquals(1, status, () -> "stderr: " + child.stderr());
            assertFalse(child.stdout().contains("main started"), "main never ran");
            String stderr = String.join("\n", child.stderr());
            assertTrue(stderr.contains("fenced agent: ") && stderr.contains(message), stderr);
        }
    }

    @Test
    void aDriverLoadedChildFirstSeesTheAgentsSharedState() throws Exception {
        Path cfg = config(METHOD);
        String driverJar = Path.of(FencedDriver.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        String pgJar = Path.of(org.postgresql.Driver.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        try (ChildJvm child =
                AgentChild.start("config=" + cfg, List.of(), JobMain.class, "childfirst", url, driverJar, pgJar)) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            assertEquals(
                    List.of("fencing-loader true own-store-copy true"),
                    child.lines("childfirst "),
                    "the child-first loader has its own copy of the driver and of FencedContextStore");
            Map<String, String> tokens = tokens(child);
            String token = tokens.get("caller");
            assertNotEquals("none", token);
            assertEquals(token, tokens.get("childfirst"), "the child-first copy sees the binding the agent carried");
            assertEquals(Long.parseLong(token), lastToken(5), "and its write carries it");
        }
    }
}
