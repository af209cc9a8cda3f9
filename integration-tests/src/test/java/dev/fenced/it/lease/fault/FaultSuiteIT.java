package dev.fenced.it.lease.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.it.lease.fault.FaultRun.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The fault suite, short and seeded in the normal build; long by system properties (see
 * {@code tools/fault-suite.sh}): {@code -Dfenced.faults.seconds=600 -Dfenced.faults.topologySeconds=600
 * -Dfenced.faults.seeds=1,2,3}. A fenced run must pass every safety check with 0; a control run (the lease alone,
 * writes without the fence) on the same kind of schedule must show stale overwrites, or the faults did not bite.
 * The standby and PgBouncer topologies run the fenced holders only (their control is the single server's).
 * Each run's report is appended to {@code target/fault-report.md}.
 */
class FaultSuiteIT {

    private static final Duration TTL = Duration.ofMillis(1500);
    private static final Path REPORT = Path.of("target", "fault-report.md");

    @Test
    void fencedRunsPassEverySafetyCheckAndTheControlRunShowsTheFaultsBite() throws Exception {
        long seconds = Long.getLong("fenced.faults.seconds", 40);
        for (long seed : seeds()) {
            assertSafe(runOnce(setup(seed, true, seconds, Topology.SINGLE)));
        }
        long controlSeconds = Math.min(seconds, 60);
        // Whether a short control run catches a stale overwrite depends on timing as well as on the schedule (a
        // holder frozen between read and write while another takes the row over): up to three schedules are tried.
        Checker.Report control = null;
        for (int attempt = 0; attempt < 3 && (control == null || control.staleOverwrites() == 0); attempt++) {
            control = runOnce(setup(seeds().get(0) + 1000L * attempt, false, controlSeconds, Topology.SINGLE));
        }
        assertTrue(
                control.staleOverwrites() > 0,
                "three control runs showed no stale overwrite: the faults did not" + " bite\n" + control.markdown());
    }

    /** Acknowledged writes the old primary had not shipped are the topology's loss; fencing must lose nothing else. */
    @Test
    void failoverToAnAsynchronousStandbyThatLostWal() throws Exception {
        for (long seed : seeds()) {
            assertSafe(runOnce(setup(seed, true, topologySeconds(), Topology.ASYNC_STANDBY)));
        }
    }

    @Test
    void failoverToASynchronousStandbyLosesNothing() throws Exception {
        for (long seed : seeds()) {
            assertSafe(runOnce(setup(seed, true, topologySeconds(), Topology.SYNC_STANDBY)));
        }
    }

    @Test
    void pgBouncerInTransactionPoolingMode() throws Exception {
        if (PgBouncer.binary().isEmpty()) {
            String why = "pgbouncer is not installed (apt-get install -y pgbouncer): the PgBouncer topology cannot run";
            if (System.getenv("CI") != null) {
                fail(why + " (CI is set: .ci/run installs it)");
            }
            Assumptions.abort(why);
        }
        for (long seed : seeds()) {
            assertSafe(runOnce(setup(seed, true, topologySeconds(), Topology.PGBOUNCER)));
        }
    }

    private static void assertSafe(Checker.Report r) {
        assertEquals(0, r.staleOverwrites(), r.markdown());
        assertEquals(0, r.tokensGrantedTwice(), r.markdown());
        assertEquals(0, r.tokensOutOfOrder(), r.markdown());
        assertEquals(0, r.historyOutOfOrder(), r.markdown());
        assertEquals(0, r.acknowledgedWritesLost(), r.markdown());
        assertEquals(0, r.writesSentAfterDeadline(), r.markdown());
    }

    private static FaultRun.Setup setup(long seed, boolean fenced, long seconds, Topology topology) {
        return new FaultRun.Setup(seed, fenced, 3, 2, TTL, Duration.ofSeconds(seconds), topology);
    }

    private static long topologySeconds() {
        return Long.getLong("fenced.faults.topologySeconds", 12);
    }

    private static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (String s : System.getProperty("fenced.faults.seeds", "1").split(",")) {
            seeds.add(Long.parseLong(s.trim()));
        }
        return seeds;
    }

    private static Checker.Report runOnce(FaultRun.Setup setup) throws Exception {
        Path root = Files.createTempDirectory("fenced-faults-");
        try {
            Checker.Report r = new FaultRun(setup, root).run();
            System.out.println(r.markdown());
            Files.writeString(REPORT, r.markdown() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return r;
        } finally {
            PgServer.delete(root);
        }
    }
}
