package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.ChildJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Every hand-over mechanism the agent covers, in a child JVM, with a token bound and then without. */
@Tag("jvm-sensitive")
class PropagationIT {

    private static Map<String, String> seen(ChildJvm child, String label) {
        Map<String, String> m = new TreeMap<>();
        for (String l : child.lines(label + " ")) {
            String[] p = l.split(" ");
            m.put(p[0], p[1]);
        }
        return m;
    }

    @Test
    void tasksRunWithTheSubmittersTokenAndWorkersKeepNothing() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of(), PropagationMain.class)) {
            assertEquals(0, child.await(Duration.ofSeconds(60)), () -> "stderr: " + child.stderr());
            Map<String, String> seen = seen(child, "seen");
            Map<String, String> after = seen(child, "after");
            int expected = Runtime.version().feature() >= 21 ? 15 : 13;
            assertEquals(expected, seen.size(), seen::toString);
            assertTrue(seen.values().stream().allMatch("42"::equals), () -> "with token 42 bound: " + seen);
            assertEquals(seen.keySet(), after.keySet());
            assertTrue(after.values().stream().allMatch("none"::equals), () -> "afterwards, unbound: " + after);
        }
    }
}
