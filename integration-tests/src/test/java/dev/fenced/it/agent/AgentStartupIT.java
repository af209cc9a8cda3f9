package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the agent loads at start (issue 25: its start-up cost came from loading and running Byte Buddy's
 * AgentBuilder, 750 to 1,100 classes, before main): a JVM that loads no type the agent instruments loads no Byte Buddy
 * class, with or without a lease method configured; at most a few classes of the ASM that Byte Buddy bundles (to read
 * a lease class's methods, and on Java 21+ to weave {@code Thread}). Counted from the JVM's class-loading log, not
 * timed.
 */
@Tag("jvm-sensitive")
class AgentStartupIT {

    private static final String BYTE_BUDDY = "dev.fenced.internal.agent.shaded.bytebuddy.";
    private static final String ASM = BYTE_BUDDY + "jar.asm.";
    private static final Duration CHILD = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** The classes {@code main} loaded, run with the agent and {@code agentArgument}. */
    private List<String> loaded(String agentArgument, Class<?> main) throws Exception {
        Path log = dir.resolve("classes-" + System.nanoTime() + ".log");
        try (ChildJvm child = AgentChild.start(agentArgument, List.of("-Xlog:class+load:file=" + log), main)) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
        }
        List<String> classes = AgentChild.loadedClasses(log);
        assertTrue(classes.contains(main.getName()), "the log lists the classes loaded: " + log);
        return classes;
    }

    /** The Byte Buddy classes loaded, ASM's aside; asserts that those are few. */
    private static List<String> byteBuddy(List<String> classes) {
        List<String> bb = new ArrayList<>();
        int asm = 0;
        for (String c : classes) {
            if (c.startsWith(ASM)) {
                asm++;
            } else if (c.startsWith(BYTE_BUDDY)) {
                bb.add(c);
            }
        }
        assertTrue(asm <= 40, asm + " ASM classes loaded");
        return bb;
    }

    @Test
    void aTinyMainLoadsNoByteBuddyClass() throws Exception {
        List<String> classes = loaded("", TinyMain.class);
        List<String> bb = byteBuddy(classes);
        assertEquals(List.of(), bb, () -> bb.size() + " Byte Buddy classes loaded");
    }

    @Test
    void aConfiguredLeaseMethodLoadsNoByteBuddyClassNorItsOwnClassUntilTheApplicationDoes() throws Exception {
        Path cfg = dir.resolve("fenced.properties");
        Files.write(cfg, List.of("fenced.lease.nightly.method=" + NightlyJob.class.getName() + "#run"));
        List<String> classes = loaded("config=" + cfg, TinyMain.class);
        List<String> bb = byteBuddy(classes);
        assertEquals(List.of(), bb, () -> bb.size() + " Byte Buddy classes loaded");
        assertFalse(classes.contains(NightlyJob.class.getName()), "the lease class was checked, not loaded");
    }

    /**
     * Nothing is read at start only when nothing configures fenced: a {@code fenced.*} system property is still
     * read and checked there, and a bad one stops the JVM before main.
     */
    @Test
    void aFencedSystemPropertyIsStillCheckedAtStart() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of("-Dfenced.agent.enabled=perhaps"), TinyMain.class)) {
            assertEquals(1, child.await(CHILD), () -> "stderr: " + child.stderr());
            assertFalse(child.stdout().contains("hello"), "main never ran");
            String stderr = String.join("\n", child.stderr());
            assertTrue(stderr.contains("fenced agent: ") && stderr.contains("fenced.agent.enabled"), stderr);
        }
    }

    /**
     * The counterpart, and the check that the log shows Byte Buddy when it loads: an application that uses executors
     * and futures loads it when the first of them loads (PropagationIT checks that their tasks propagate).
     */
    @Test
    void anApplicationUsingExecutorsLoadsByteBuddyThen() throws Exception {
        List<String> classes = loaded("", PropagationMain.class);
        assertFalse(byteBuddy(classes).isEmpty(), "Byte Buddy loaded when the first executor type loads");
    }
}
