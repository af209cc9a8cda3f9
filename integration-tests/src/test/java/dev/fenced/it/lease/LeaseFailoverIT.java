package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.Tokens;
import dev.fenced.it.lease.fault.PgServer;
import dev.fenced.it.support.FencedTestExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Failover to an asynchronous standby that missed the old primary's last grants: the old primary keeps
 * granting while the standby is disconnected, dies, the standby is promoted, and every token it grants
 * exceeds every token the old primary granted, with no manual step.
 */
@ExtendWith(FencedTestExtension.class)
class LeaseFailoverIT {

    private Path root;
    private PgServer primary;
    private PgServer standby;

    @AfterEach
    void cleanUp() throws Exception {
        if (standby != null) {
            standby.close();
        }
        if (primary != null) {
            primary.close();
        }
        PgServer.delete(root);
    }

    @Test
    void aPromotedStandbyThatLostWalNeverRepeatsATokenOfTheOldPrimary() throws Exception {
        startPrimaryAndStandby(Map.of("wal_keep_size", "'64MB'"));
        List<Long> old = new ArrayList<>(grant(primary, "replicated", 20));
        String lsn = (String) primary.query("SELECT pg_current_wal_lsn()::text");
        standby.awaitTrue("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn");
        standby.stop(); // disconnected: what the primary grants from here never reaches it
        old.addAll(grant(primary, "unreplicated", 100));
        primary.killAll();
        standby.start();
        promoteAndCheck(old);
    }

    /**
     * A synchronous standby, while the primary's own setting is {@code synchronous_commit = off} (so its commits
     * do not wait for the standby; fenced's grants raise that only to {@code local}): still no token repeats.
     */
    @Test
    void aPromotedSynchronousStandbyNeverRepeatsATokenEither() throws Exception {
        startPrimaryAndStandby(
                Map.of("wal_keep_size", "'64MB'", "synchronous_standby_names", "'*'", "synchronous_commit", "off"));
        primary.awaitTrue("SELECT count(*) = 1 FROM pg_stat_replication WHERE sync_state = 'sync'");
        List<Long> old = grant(primary, "sync", 60);
        primary.killAll();
        promoteAndCheck(old);
    }

    private void startPrimaryAndStandby(Map<String, String> conf) throws Exception {
        root = Files.createTempDirectory("fenced-failover-");
        primary = PgServer.init(root.resolve("primary"), conf).start();
        grant(primary, "warm-up", 1);
        standby = primary.startStandby(root.resolve("standby"), Map.of());
    }

    /** Promotes the standby and grants on it: every token exceeds the old primary's, and they strictly grow. */
    private void promoteAndCheck(List<Long> old) throws Exception {
        long highestOld = old.stream().mapToLong(Long::longValue).max().orElseThrow();
        standby.promote();
        // What the two timeline sources say right after promotion (the checkpoint's lags until the
        // end-of-recovery checkpoint is done; the WAL insert position's does not).
        System.out.println("after promotion: insert timeline "
                + standby.query("SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)") + ", checkpoint timeline "
                + standby.query("SELECT timeline_id FROM pg_control_checkpoint()"));
        List<Long> fresh = grant(standby, "after-failover", 20);
        List<Long> repeated = fresh.stream().filter(t -> t <= highestOld).toList();
        assertTrue(
                repeated.isEmpty(),
                "the promoted standby granted tokens the old primary had granted: " + repeated
                        + " (old primary's highest " + highestOld + ")");
        for (int i = 1; i < fresh.size(); i++) {
            assertTrue(fresh.get(i) > fresh.get(i - 1), "tokens strictly grow: " + fresh);
        }
        assertTrue(Tokens.timelineOf(fresh.get(0)) > Tokens.timelineOf(highestOld), fresh.get(0) + " vs " + highestOld);
    }

    private static List<Long> grant(PgServer server, String prefix, int n) throws Exception {
        List<Long> tokens = new ArrayList<>();
        try (LeaseManager leases =
                LeaseManager.builder(server.dataSource()).withoutRenewal().build()) {
            for (int i = 0; i < n; i++) {
                Lease l = leases.tryAcquire(prefix + "-" + i, Duration.ofMinutes(5))
                        .orElseThrow();
                tokens.add(l.token());
                FencedTestExtension.unbind();
            }
            // the leases stay held: a dead primary releases nothing
        } catch (IllegalStateException ignored) {
            // close() could not release on a killed server
        }
        return tokens;
    }
}
