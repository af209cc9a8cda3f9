package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.context.ContextAccess;
import dev.fenced.it.lease.fault.PgServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failover to an asynchronous standby that missed the old primary's last grants: the old primary keeps
 * granting while the standby is disconnected, dies, the standby is promoted, and every token it grants
 * exceeds every token the old primary granted, with no manual step.
 */
class LeaseFailoverTest {

    private Path root;
    private PgServer primary;
    private PgServer standby;

    @AfterEach
    void cleanUp() throws Exception {
        ContextAccess.swap(null);
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
        root = Files.createTempDirectory("fenced-failover-");
        primary = PgServer.init(root.resolve("primary"), Map.of("wal_keep_size", "'64MB'")).start();
        grant(primary, "warm-up", 1);
        primary.stop();
        Path standbyDir = root.resolve("standby");
        primary.copyTo(standbyDir);
        Files.createFile(standbyDir.resolve("standby.signal"));
        PgServer.appendConf(standbyDir, Map.of("primary_conninfo",
                "'host=127.0.0.1 port=" + primary.port() + " user=postgres'"));
        primary.start();
        standby = PgServer.existing(standbyDir).start();
        assertEquals(Boolean.TRUE, standby.query("SELECT pg_is_in_recovery()"));

        List<Long> old = new ArrayList<>(grant(primary, "replicated", 20));
        String lsn = (String) primary.query("SELECT pg_current_wal_lsn()::text");
        awaitTrue(standby, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn");
        standby.stop(); // disconnected: what the primary grants from here never reaches it
        old.addAll(grant(primary, "unreplicated", 100));
        long highestOld = old.stream().mapToLong(Long::longValue).max().orElseThrow();
        primary.killAll();

        standby.start();
        assertEquals(Boolean.TRUE, standby.query("SELECT pg_promote(true, 60)"));
        assertEquals(Boolean.FALSE, standby.query("SELECT pg_is_in_recovery()"));
        List<Long> fresh = grant(standby, "after-failover", 20);
        List<Long> repeated = fresh.stream().filter(t -> t <= highestOld).toList();
        assertTrue(repeated.isEmpty(), "the promoted standby granted tokens the old primary had granted: " + repeated
                + " (old primary's highest " + highestOld + ")");
        for (int i = 1; i < fresh.size(); i++) {
            assertTrue(fresh.get(i) > fresh.get(i - 1), "tokens strictly grow: " + fresh);
        }
    }

    private static List<Long> grant(PgServer server, String prefix, int n) throws Exception {
        List<Long> tokens = new ArrayList<>();
        try (LeaseManager leases = LeaseManager.builder(server.dataSource()).withoutRenewal().build()) {
            for (int i = 0; i < n; i++) {
                Lease l = leases.tryAcquire(prefix + "-" + i, Duration.ofMinutes(5)).orElseThrow();
                tokens.add(l.token());
                ContextAccess.swap(null);
            }
            // the leases stay held: a dead primary releases nothing
        } catch (IllegalStateException ignored) {
            // close() could not release on a killed server
        }
        return tokens;
    }

    private static void awaitTrue(PgServer server, String sql) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Boolean.TRUE.equals(server.query(sql))) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not true within 30 s: " + sql);
            }
            Thread.sleep(20);
        }
    }
}
