package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.ChildJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The suite-wide invariant reaches the child JVMs ({@code LeakCheckedMain}): a child whose pooled thread is left with
 * a binding as it exits fails the test that started it. With the agent, the same task leaves nothing:
 * the agent restores the pool thread's binding when each task ends, whatever the task left bound.
 */
class ChildLeakCheckIT {

    private static final Duration CHILD = Duration.ofSeconds(60);

    /**
     * Without the agent: every {@link ChildJvm} (the agent tests', the lease tests', the lock libraries' scheduler
     * nodes) runs its main under the check, and closing a child that ended on its own fails on its leak.
     */
    @Test
    void aChildJvmLeavingATokenOnAPooledThreadFailsTheTestWhenItExitsOnItsOwn() throws Exception {
        ChildJvm child = ChildJvm.start(LeakyMain.class, "4242");
        child.awaitLine(CHILD, "leaked");
        assertTrue(child.waitFor(CHILD), "the child exits");
        AssertionError leak = assertThrows(AssertionError.class, child::close);
        assertTrue(leak.getMessage().contains("lease token 4242"), leak::getMessage);
    }

    /** A child that armed the check and ended without running it (halt: no shutdown hook) fails: no verdict. */
    @Test
    void aChildThatEndsWithoutItsVerdictFailsTheTest() throws Exception {
        ChildJvm child = ChildJvm.start(LeakyMain.class, "4242", "halt");
        assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
        AssertionError missing = assertThrows(AssertionError.class, child::close);
        assertTrue(missing.getMessage().contains("without its verdict"), missing::getMessage);
    }

    /** Unless the test says it means the child to halt (the agent's way to stop a JVM at once). */
    @Test
    void aChildTheTestMeansToHaltOwesNoVerdict() throws Exception {
        try (ChildJvm child = ChildJvm.start(LeakyMain.class, "4242", "halt").expectHalt()) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
        }
    }

    /** SIGKILL runs no check, so a child the test killed is not held to one, leak or not. */
    @Test
    void aChildTheTestKillsIsNotChecked() throws Exception {
        try (ChildJvm child = ChildJvm.start(LeakyMain.class, "4242", "hold")) {
            child.awaitLine(CHILD, "leaked");
            child.kill();
            assertTrue(child.waitFor(CHILD), "the child is gone");
        }
    }

    @Test
    void withTheAgentThePoolThreadIsRestoredWhenTheTaskEnds() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of(), LeakyMain.class, "4242")) {
            assertEquals(0, child.await(CHILD), () -> "stderr: " + child.stderr());
            assertTrue(child.stdout().contains("leaked"), () -> "stdout: " + child.stdout());
            assertTrue(child.stderr().contains("fenced-leak-check: clean"), () -> "stderr: " + child.stderr());
        }
    }
}
