package dev.fenced.it.lease.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fault suite, short and seeded in the normal build; long by system properties (see
 * {@code tools/fault-suite.sh}): {@code -Dfenced.faults.seconds=600 -Dfenced.faults.seeds=1,2,3}.
 * A fenced run must pass every safety check with 0; a control run (the lease alone, writes without the
 * fence) on the same kind of schedule must show stale overwrites, or the faults did not bite.
 * Each run's report is appended to {@code target/fault-report.md}.
 */
class FaultSuiteTest {

    private static final Duration TTL = Duration.ofMillis(1500);

    @Test
    void fencedRunsPassEverySafetyCheckAndTheControlRunShowsTheFaultsBite() throws Exception {
        long seconds = Long.getLong("fenced.faults.seconds", 40);
        List<Long> seeds = new ArrayList<>();
        for (String s : System.getProperty("fenced.faults.seeds", "1").split(",")) {
            seeds.add(Long.parseLong(s.trim()));
        }
        Path report = Path.of("target", "fault-report.md");
        for (long seed : seeds) {
            Checker.Report fenced = runOnce(new FaultRun.Setup(seed, true, 3, 2, TTL, Duration.ofSeconds(seconds)), report);
            assertEquals(0, fenced.staleOverwrites(), fenced.markdown());
            assertEquals(0, fenced.tokensGrantedTwice(), fenced.markdown());
            assertEquals(0, fenced.tokensOutOfOrder(), fenced.markdown());
            assertEquals(0, fenced.acknowledgedWritesLost(), fenced.markdown());
        }
        long controlSeconds = Math.min(seconds, 60);
        Checker.Report control = runOnce(new FaultRun.Setup(seeds.get(0), false, 3, 2, TTL,
                Duration.ofSeconds(controlSeconds)), report);
        assertTrue(control.staleOverwrites() > 0, "the control run showed no stale overwrite: the faults did not bite\n"
                + control.markdown());
    }

    private static Checker.Report runOnce(FaultRun.Setup setup, Path report) throws Exception {
        Path root = Files.createTempDirectory("fenced-faults-");
        try {
            Checker.Report r = new FaultRun(setup, root).run();
            System.out.println(r.markdown());
            Files.writeString(report, r.markdown() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return r;
        } finally {
            PgServer.delete(root);
        }
    }
}
