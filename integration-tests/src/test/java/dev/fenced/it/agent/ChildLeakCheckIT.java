package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The suite-wide invariant reaches the agent's child JVMs ({@code LeakCheckedMain}): a child whose pooled thread is
 * left with a binding as it exits fails the test that started it. With the agent, the same task leaves nothing:
 * the agent restores the pool thread's binding when each task ends, whatever the task left bound.
 */
class ChildLeakCheckIT {

    @Test
    void withoutTheAgentAChildLeavingATokenOnAPooledThreadFailsTheTest() throws Exception {
        AgentChild child = AgentChild.start(null, List.of(), LeakyMain.class, "4242");
        assertEquals(0, child.await(Duration.ofSeconds(60)), () -> "stderr: " + child.stderr());
        assertTrue(child.stdout().contains("leaked"), () -> "stdout: " + child.stdout());
        AssertionError leak = assertThrows(AssertionError.class, child::close);
        assertTrue(leak.getMessage().contains("lease token 4242"), leak::getMessage);
    }

    @Test
    void withTheAgentThePoolThreadIsRestoredWhenTheTaskEnds() throws Exception {
        try (AgentChild child = AgentChild.start("", List.of(), LeakyMain.class, "4242")) {
            assertEquals(0, child.await(Duration.ofSeconds(60)), () -> "stderr: " + child.stderr());
            assertTrue(child.stdout().contains("leaked"), () -> "stdout: " + child.stdout());
            assertTrue(child.stderr().contains("fenced-leak-check: clean"), () -> "stderr: " + child.stderr());
        }
    }
}
