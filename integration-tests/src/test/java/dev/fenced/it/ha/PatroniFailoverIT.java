package dev.fenced.it.ha;

import static dev.fenced.it.ha.Failovers.faultRun;
import static dev.fenced.it.ha.Failovers.require;

import dev.fenced.it.ha.Failovers.Case;
import dev.fenced.it.ha.Failovers.Fault;
import dev.fenced.it.support.EtcdCluster;
import dev.fenced.it.support.LoopbackCut;
import dev.fenced.it.support.PatroniCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * fenced's leases and fencing under PostgreSQL HA as teams run it: Patroni on a three-member etcd, a primary and a
 * replica, the application ({@link Job}: two instances of one job taking turns at one lease) on pgjdbc's multi-host
 * URL. For asynchronous replication and for {@code synchronous_mode: true}, the primary's postmaster is SIGKILLed
 * (Patroni fails over: {@code master_start_timeout: 0}), then the whole primary node (Patroni, postmaster and
 * backends at once: failover after the leader key's ttl), then the replica is cut off its primary (its replication
 * connection dropped both ways by iptables on loopback) for 1.5 s before the primary's node dies, so that a lagging
 * replica is promoted: without synchronous mode the writes the primary acknowledged during the cut are lost (asserted:
 * the fault is made for it), with it none is (commits wait for the cut-off standby). Each time: the holder at the fault loses its lease and its
 * next write is refused by the driver; a paused holder (a child JVM that never learnt of the loss) writing under the
 * old token is refused by the database; the next grant, on the new primary, has a strictly greater token whose
 * timeline is the new primary's; the job resumes; the old primary rejoins as a replica (by {@code pg_rewind} when its
 * WAL diverged) and refuses to grant. Measured and reported per case (stdout and
 * {@code target/patroni-failover.md}): failover time, client outage, tokens, refusals, acknowledged writes lost
 * (expected only without synchronous mode: reported there, apart for the cut-off replica's cases; asserted 0 with
 * it). The cases and checks are shared with {@link PgAutoFailoverIT} ({@link Failovers}).
 *
 * <p>Short by default (one case of each fault per mode, Patroni's timing shortened to ttl 10 s, loop_wait 2 s). The
 * long run: {@code -Dfencedtest.patroni.seconds=N} (cases until N seconds per mode and seed),
 * {@code -Dfencedtest.patroni.seeds=1,2,3} and {@code -Dfencedtest.patroni.timing=defaults} (Patroni's own ttl 30 s,
 * loop_wait 10 s, retry_timeout 10 s); see docs/ha-patroni.md.
 */
class PatroniFailoverIT {

    static final Path REPORT = Path.of("target", "patroni-failover.md");

    static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        require(EtcdCluster.binaryPresent(), "etcd is not installed (apt-get install -y etcd-server)");
        require(PatroniCluster.binariesPresent(), "Patroni is not installed (apt-get install -y patroni)");
        require(LoopbackCut.available(), "iptables is not installed (apt-get install -y iptables)");
        etcd = EtcdCluster.start("fenced-ha", 3);
    }

    @AfterAll
    static void stopEtcd() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void asynchronousReplication() throws Exception {
        run(false);
    }

    @Test
    void synchronousMode() throws Exception {
        run(true);
    }

    private void run(boolean synchronous) throws Exception {
        String mode = synchronous ? "synchronous_mode" : "async";
        long seconds = Long.getLong("fencedtest.patroni.seconds", 0);
        boolean defaults = "defaults".equals(System.getProperty("fencedtest.patroni.timing", "fast"));
        PatroniCluster.Options options = defaults
                ? PatroniCluster.Options.defaults(synchronous)
                : new PatroniCluster.Options(synchronous, 10, 2, 3);
        List<Case> cases = new ArrayList<>();
        for (String s : System.getProperty("fencedtest.patroni.seeds", "1").split(",")) {
            long seed = Long.parseLong(s.trim());
            String scope = "fenced-" + (synchronous ? "sync" : "async") + "-" + seed;
            try (PatroniCluster cluster = PatroniCluster.start(scope, etcd, options, 2)) {
                cases.addAll(faultRun(
                        cluster,
                        "patroni " + mode,
                        seed,
                        List.of(Fault.POSTMASTER, Fault.NODE, Fault.LAGGING_REPLICA),
                        synchronous,
                        seconds,
                        REPORT));
            }
        }
        System.out.println("patroni " + mode + ": " + cases.size() + " faults; acknowledged writes lost "
                + cases.stream().mapToLong(Case::ackedLost).sum() + " of "
                + cases.stream().mapToLong(Case::ackedBefore).sum());
    }
}
