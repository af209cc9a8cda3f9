package dev.fenced.it.ha;

import static dev.fenced.it.ha.Failovers.faultRun;
import static dev.fenced.it.ha.Failovers.require;

import dev.fenced.it.ha.Failovers.Case;
import dev.fenced.it.ha.Failovers.Fault;
import dev.fenced.it.support.AutoFailoverCluster;
import dev.fenced.it.support.LoopbackCut;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * fenced's leases and fencing under pg_auto_failover, the other HA manager teams run: a monitor and two data nodes
 * ({@link AutoFailoverCluster}), the application ({@link Job}) on pgjdbc's multi-host URL. For pg_auto_failover's own
 * default, replication quorum (a commit waits for the standby: {@code synchronous_standby_names = 'ANY 1 (...)'}),
 * and for asynchronous streaming ({@code --replication-quorum false}): the whole primary node SIGKILLed (pg_autoctl,
 * postmaster and backends at once: the monitor finds it unhealthy, waits for it to demote, then promotes the standby),
 * and the standby's replication connection cut before the primary's node dies (what the primary acknowledged
 * meanwhile is lost without quorum, never with it); and the monitor's faults: the monitor SIGKILLed (no failover:
 * the primary serves on, fenced grants, the job's writes land), the primary cut off from the monitor alone (the
 * monitor fails over, the old primary demotes itself first, then rejoins). The checks are {@link PatroniFailoverIT}'s ({@link Failovers}):
 * the holder refused, a paused holder refused by the database, tokens never repeating (the new primary's timeline),
 * the job resumed, the old primary rejoined (by {@code pg_rewind}) never granting, acknowledged writes lost counted.
 * Reported in {@code target/pg-auto-failover.md}.
 *
 * <p>The build's run: one case of each fault per mode (of the monitor's faults, one per mode: {@link #faults}),
 * pg_auto_failover's timing shortened
 * ({@link AutoFailoverCluster.Options#fast}). {@code -Dfencedtest.autofailover.timing=defaults} runs its own timing
 * (a node death costs some 50 s), {@code -Dfencedtest.autofailover.seconds=N} and
 * {@code -Dfencedtest.autofailover.seeds=1,2} run longer; see docs/ha-pg-auto-failover.md.
 */
class PgAutoFailoverIT {

    static final Path REPORT = Path.of("target", "pg-auto-failover.md");

    @BeforeAll
    static void binaries() {
        require(
                AutoFailoverCluster.binariesPresent(),
                "pg_auto_failover is not installed (apt-get install -y postgresql-15-auto-failover)");
        require(LoopbackCut.available(), "iptables is not installed (apt-get install -y iptables)");
        require(
                LoopbackCut.processCutAvailable(),
                "no writable cgroup v2 hierarchy (to cut a primary off its monitor)");
    }

    /**
     * Every fault in a long run; in the build's run, short, each of the monitor's faults in one mode: the primary
     * cut off from the monitor where no acknowledged write may be lost (replication quorum), the monitor killed in
     * the other.
     */
    static List<Fault> faults(boolean synchronous, long seconds) {
        if (seconds > 0) {
            return List.of(Fault.NODE, Fault.LAGGING_REPLICA, Fault.MONITOR_KILLED, Fault.PRIMARY_CUT_FROM_MONITOR);
        }
        return List.of(
                Fault.NODE, Fault.LAGGING_REPLICA, synchronous ? Fault.PRIMARY_CUT_FROM_MONITOR : Fault.MONITOR_KILLED);
    }

    @Test
    void replicationQuorum() throws Exception {
        run(true);
    }

    @Test
    void asynchronous() throws Exception {
        run(false);
    }

    private void run(boolean synchronous) throws Exception {
        String mode = synchronous ? "replication quorum" : "async";
        long seconds = Long.getLong("fencedtest.autofailover.seconds", 0);
        boolean defaults = "defaults".equals(System.getProperty("fencedtest.autofailover.timing", "fast"));
        AutoFailoverCluster.Options options = defaults
                ? AutoFailoverCluster.Options.defaults(synchronous)
                : AutoFailoverCluster.Options.fast(synchronous);
        List<Case> cases = new ArrayList<>();
        for (String s : System.getProperty("fencedtest.autofailover.seeds", "1").split(",")) {
            long seed = Long.parseLong(s.trim());
            String name = "fenced-" + (synchronous ? "quorum" : "async") + "-" + seed;
            try (AutoFailoverCluster cluster = AutoFailoverCluster.start(name, options, 2)) {
                cases.addAll(faultRun(
                        cluster,
                        "pg_auto_failover " + mode + (defaults ? " (default timing)" : ""),
                        seed,
                        faults(synchronous, seconds),
                        synchronous,
                        seconds,
                        REPORT));
            }
        }
        System.out.println("pg_auto_failover " + mode + ": " + cases.size() + " faults; acknowledged writes lost "
                + cases.stream().mapToLong(Case::ackedLost).sum() + " of "
                + cases.stream().mapToLong(Case::ackedBefore).sum());
    }
}
