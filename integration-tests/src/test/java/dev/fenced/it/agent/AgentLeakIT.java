package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17, in child JVMs with the agent: captured tokens are revoked when their scope or lease ends, the lease
 * manager's callbacks carry no caller's token and do not wait on each other, lease-bound methods are instrumented
 * or the JVM stops, a lease-bound method re-entered on a pool thread runs inside its lease, and the lease table
 * name cannot inject SQL.
 */
@Tag("jvm-sensitive")
class AgentLeakIT {

    private static final Duration CHILD = Duration.ofSeconds(90);
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

    private static Map<String, String> results(ChildJvm child) {
        Map<String, String> m = new TreeMap<>();
        for (String l : child.lines("result ")) {
            String[] p = l.split(" ");
            m.put(p[0], p[1]);
        }
        return m;
    }

    private static long amount(int restaurant) {
        return db.queryLong("SELECT amount FROM totals WHERE restaurant_id = " + restaurant);
    }

    @Test
    void whatWasCapturedUnderAScopeOrLeaseCannotWriteAfterItEnded() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of(), LeakMain.class, "revoke", url, db.rawUrl())) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            Map<String, String> r = results(child);
            assertEquals("LeaseLostException", r.get("periodic-after-scope"), r::toString);
            assertEquals(
                    "UnfencedWriteException",
                    r.get("periodic-after-unfenced"),
                    "unfenced is for the section only, not for the periodic task it scheduled: " + r);
            assertEquals("LeaseLostException", r.get("prebuilt-futuretask-after-scope"), r::toString);
            if (VIRTUAL) {
                assertEquals("LeaseLostException", r.get("unstarted-virtual-thread-after-scope"), r::toString);
            }
            assertEquals(
                    "LeaseLostException",
                    r.get("bind-token-of-ended-lease"),
                    "a token of a lease that ended in this JVM binds as lost: " + r);
            assertEquals("refused/none/UnfencedWriteException", r.get("scopes-closed-out-of-order"), r::toString);
            assertEquals(
                    "none/UnfencedWriteException",
                    r.get("worker-after-lease-closed-elsewhere"),
                    "the next task on that worker runs with its own state, not the closed lease's cell: " + r);
            assertEquals(
                    "none/UnfencedWriteException",
                    r.get("acquirer-after-closed-elsewhere-then-own-close"),
                    "the lease's own close unbinds its acquiring thread, also after another thread closed it: " + r);
            assertEquals(0, amount(8));
            assertEquals(1, amount(1), "one periodic write inside the scope, none after");
            assertEquals(0, amount(3));
            assertEquals(0, amount(4));
            assertEquals(0, amount(6));
        }
    }

    @Test
    void onLostCallbacksCarryNoTokenAndOneThatBlocksDoesNotHoldBackTheNext() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of(), LeakMain.class, "onlost", url, db.rawUrl())) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            String lone = results(child).get("lone-onlost-callback");
            assertTrue(lone.startsWith("none/"), () -> "lease C's onLost ran with a token (lease A's?): " + lone);
            assertEquals(
                    "none/UnfencedWriteException",
                    results(child).get("second-onlost-callback"),
                    () -> "lease B's second callback, while its first blocks: " + child.stdout());
            assertEquals(0, amount(7), "no write from a callback with lease A's token");
        }
    }

    /**
     * Issue 25, item 2: a renewal tick planned by the acquiring thread while a lease was bound carried that token
     * to every later tick and store call on the manager's threads (and a protected write from there landed).
     */
    @Test
    void theLeaseManagersOwnThreadsCarryNoTokenWhateverTheAcquiringThreadHadBound() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of(), LeakMain.class, "ownthreads", url, db.rawUrl())) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            Map<String, String> r = results(child);
            assertEquals("true", r.get("renewed"), r::toString);
            assertEquals("b", r.get("main-thread"), "the acquiring thread keeps its own binding: " + r);
            assertTrue(Integer.parseInt(r.get("store-calls")) >= 8, r::toString);
            assertEquals("0", r.get("store-calls-with-token"), () -> "store calls with a token: " + child.stdout());
            assertEquals("UnfencedWriteException", r.get("own-thread-write"), r::toString);
            assertEquals(0, amount(2), "no write from a thread of the lease manager's");
        }
    }

    @Test
    void aLeaseBoundMethodCallingItselfOnAPoolThreadRunsInsideItsLease() throws Exception {
        for (String onBusy : List.of("skip", "wait", "fail")) {
            rows();
            Path cfg = config(
                    "fenced.lease.pooled.method=" + PoolJob.class.getName() + "#recurse",
                    "fenced.lease.pooled.ttl=20s",
                    "fenced.lease.pooled.onBusy=" + onBusy);
            try (ChildJvm child =
                    AgentChild.start("config=" + cfg, List.of(), LeakMain.class, "recurse", url, db.rawUrl())) {
                assertEquals(0, child.await(CHILD), () -> onBusy + ": stderr: " + child.stderr());
                assertEquals("3", results(child).get("levels"), () -> onBusy + ": " + child.stdout());
                Map<String, String> tokens = new TreeMap<>();
                child.lines("token ").forEach(l -> tokens.put(l.split(" ")[0], l.split(" ")[1]));
                assertEquals(3, tokens.size(), tokens::toString);
                assertEquals(1, new HashSet<>(tokens.values()).size(), onBusy + ": one lease: " + tokens);
                assertFalse(tokens.containsValue("none"), tokens::toString);
                assertEquals(3, amount(8), onBusy);
            }
        }
    }

    @Test
    void aLeaseBoundClassInAPackageTheAgentIgnoresStopsTheJvmAtStart() throws Exception {
        for (String method : List.of(
                "org.junit.jupiter.api.Assertions#fail",
                "jdk.internal.misc.Unsafe#getUnsafe",
                "com.sun.jna.Native#load",
                "java.util.Objects#requireNonNull")) {
            Path cfg = config("fenced.lease.ignored.method=" + method);
            try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
                assertEquals(1, child.await(CHILD), () -> method + ": stderr: " + child.stderr());
                assertFalse(child.stdout().contains("main started"), "main never ran");
                String stderr = String.join("\n", child.stderr());
                assertTrue(stderr.contains("the agent does not instrument classes in"), stderr);
            }
        }
    }

    /**
     * A method just under the JVM's 64 KB limit: the lease advice makes it too large, Byte Buddy cannot instrument
     * it, and the JVM must stop instead of running the body without its lease.
     */
    @Test
    void aLeaseBoundClassTheAgentFailsToInstrumentStopsTheJvm() throws Exception {
        Path src = dir.resolve("src/gen/Huge.java");
        Files.createDirectories(src.getParent());
        StringBuilder b = new StringBuilder("package gen;\npublic class Huge {\n"
                + "  public static void main(String[] a) { System.out.println(\"body ran \" + big(a.length)); }\n"
                + "  public static long big(int x) {\n    long s = x;\n");
        // each statement compiles to 10 bytes (lload, ldc2_w, lmul, ldc2_w, ladd, lstore): 6,550 of them make a
        // 65,505-byte method, 30 bytes under the limit, too few for the lease advice
        for (int i = 0; i < 6_550; i++) {
            b.append("    s = s * 31 + ").append(1_000_003L + i).append("L;\n");
        }
        b.append("    return s;\n  }\n}\n");
        Files.writeString(src, b, StandardCharsets.UTF_8);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(
                0, javac.run(null, null, null, "-d", classes.toString(), src.toString()), "generated class compiles");

        Path cfg = config("fenced.lease.huge.method=gen.Huge#big", "fenced.lease.url=" + url);
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), classes.toString(), "gen.Huge")
                .expectHalt()) {
            int status = child.await(CHILD);
            String stderr = String.join("\n", child.stderr());
            assertEquals(1, status, stderr);
            assertTrue(child.lines("body ran").isEmpty(), "the body never ran without its lease");
            assertTrue(stderr.contains("could not instrument lease-bound class gen.Huge"), stderr);
        }
    }

    /** The lease table name, quoted with a newline, ended a -- comment in the creation script: a table was dropped. */
    @Test
    void aLeaseTableNameCannotInjectSqlThroughTheAgentsConfiguration() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS victim (id int)");
        Path cfg = config(
                "fenced.lease.nightly.method=" + NightlyJob.class.getName() + "#run",
                "fenced.lease.table=\"leak\\nDROP TABLE victim; --\"");
        try (ChildJvm child = AgentChild.start("config=" + cfg, List.of(), JobMain.class, "writes", url)) {
            int status = child.await(CHILD);
            String stderr = String.join("\n", child.stderr());
            assertEquals(1, status, stderr);
            assertTrue(stderr.contains("control or line-breaking character"), stderr);
        }
        assertEquals(1, db.queryLong("SELECT count(*) FROM pg_class WHERE relname = 'victim'"), "victim survives");
    }
}
