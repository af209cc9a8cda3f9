package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's start-up race (issue 25): Byte Buddy loads only when the first instrumented type does, so several
 * threads can load instrumented types, and a lease-bound class, while it is loading. Each run of {@link RaceMain}
 * releases five threads at once, each first to use one mechanism with its own token bound; every task must see its
 * own thread's token, no thread may hang, nothing may be left uninstrumented, and the lease class must load woven.
 * The class-loading log shows that Byte Buddy had not loaded before the threads were released, so each run raced.
 */
@Tag("jvm-sensitive")
class AgentRaceIT {

    private static final int RUNS = 6;
    private static final String BYTE_BUDDY = "dev.fenced.internal.agent.shaded.bytebuddy.";
    /** The ASM bundled with Byte Buddy, which reads the lease class's methods at start: not Byte Buddy itself. */
    private static final String ASM = BYTE_BUDDY + "jar.asm.";

    private static final List<String> MECHANISMS = List.of("tpe", "fjp", "cf", "timer", "lease");

    @TempDir
    Path dir;

    @Test
    void threadsLoadingInstrumentedTypesWhileByteBuddyLoadsEachKeepTheirOwnToken() throws Exception {
        Path cfg = dir.resolve("fenced.properties");
        Files.write(cfg, List.of("fenced.lease.race.method=" + NightlyJob.class.getName() + "#run"));
        for (int run = 1; run <= RUNS; run++) {
            Path log = dir.resolve("classes-" + run + ".log");
            List<String> said;
            List<String> stderr;
            try (ChildJvm child = AgentChild.start(
                    "config=" + cfg,
                    List.of("-Xlog:class+load:file=" + log),
                    RaceMain.class,
                    NightlyJob.class.getName())) {
                int exit = child.await(Duration.ofSeconds(90));
                said = child.stdout();
                stderr = child.stderr();
                assertEquals(0, exit, "run " + run + ": " + said + "; stderr " + stderr);
            }
            int r = run;
            for (int i = 0; i < MECHANISMS.size(); i++) {
                String expected = "race " + MECHANISMS.get(i) + " " + (1_000 + i) + " " + (1_000 + i);
                assertTrue(said.contains(expected), () -> "run " + r + ": expected '" + expected + "' in " + said);
            }
            assertFalse(
                    String.join("\n", stderr).contains("could not instrument"),
                    () -> "run " + r + ": " + String.join("\n", stderr));
            assertRaced(log, run);
        }
    }

    /** No Byte Buddy class (ASM aside) was loaded before {@link RaceMain.Go}, and the lease class loaded after it. */
    private static void assertRaced(Path log, int run) throws Exception {
        List<String> classes = AgentChild.loadedClasses(log);
        int go = classes.indexOf(RaceMain.Go.class.getName());
        assertTrue(go >= 0, "run " + run + ": the marker class is in the log " + log);
        for (int i = 0; i < go; i++) {
            String c = classes.get(i);
            assertFalse(
                    c.startsWith(BYTE_BUDDY) && !c.startsWith(ASM),
                    () -> "run " + run + ": Byte Buddy (" + c + ") loaded before the race");
        }
        assertTrue(
                classes.indexOf(NightlyJob.class.getName()) > go,
                () -> "run " + run + ": the lease class loaded during the race");
    }
}
