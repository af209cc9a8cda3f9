package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.it.support.ChildJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The agent carries a token's domain with the token: the cell it hands over is the one bound. */
@Tag("jvm-sensitive")
class AgentDomainIT {

    @Test
    void aTokenOfAnotherDomainKeepsItOnEveryPathTheAgentCarriesItAlong() throws Exception {
        try (ChildJvm child = AgentChild.start("", List.of(), DomainMain.class)) {
            assertEquals(0, child.await(Duration.ofSeconds(60)), () -> "stderr: " + child.stderr());
            assertEquals(
                    List.of("executor etcd:40", "completable etcd:40", "forkjoin etcd:40", "after none:0"),
                    child.lines("domain "));
        }
    }
}
