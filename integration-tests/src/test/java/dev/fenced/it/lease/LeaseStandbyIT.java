package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.FencedTestExtension;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real streaming-replication standby, built from the embedded PostgreSQL binaries: the primary is shut
 * down cleanly, its data directory copied, the copy started with {@code standby.signal} and a
 * {@code primary_conninfo} pointing back at the restarted primary. The lease store refuses to grant from
 * it. The same servers show that tokens keep growing across a server restart.
 */
@ExtendWith(FencedTestExtension.class)
class LeaseStandbyIT {

    private static Path root;
    private static EmbeddedPostgres primary;
    private static EmbeddedPostgres standby;
    private static long tokenBeforeRestart;

    @BeforeAll
    static void startPrimaryAndStandby() throws Exception {
        root = Files.createTempDirectory("fenced-standby-");
        Path primaryDir = root.resolve("primary");
        Path standbyDir = root.resolve("standby");
        EmbeddedPostgres first = EmbeddedPostgres.builder()
                .setDataDirectory(primaryDir)
                .setCleanDataDirectory(false)
                .start();
        int port = first.getPort();
        try (LeaseManager leases = LeaseManager.create(first.getPostgresDatabase())) {
            try (Lease lease =
                    leases.tryAcquire("before-restart", Duration.ofSeconds(30)).orElseThrow()) {
                tokenBeforeRestart = lease.token();
            }
        } finally {
            FencedTestExtension.unbind();
        }
        first.close(); // pg_ctl stop -m fast: a clean shutdown checkpoint, so a file copy is consistent

        copy(primaryDir, standbyDir);
        Files.setPosixFilePermissions(standbyDir, PosixFilePermissions.fromString("rwx------"));
        Files.createFile(standbyDir.resolve("standby.signal"));
        Files.writeString(
                standbyDir.resolve("postgresql.auto.conf"),
                "primary_conninfo = 'host=localhost port=" + port + " user=postgres'\n",
                StandardOpenOption.APPEND);

        primary = EmbeddedPostgres.builder()
                .setDataDirectory(primaryDir)
                .setCleanDataDirectory(false)
                .setPort(port)
                .start();
        standby = EmbeddedPostgres.builder()
                .setDataDirectory(standbyDir)
                .setCleanDataDirectory(false)
                .start();
    }

    @AfterAll
    static void stopAll() throws IOException {
        if (standby != null) {
            standby.close();
        }
        if (primary != null) {
            primary.close();
        }
        if (root != null) {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void theStandbyIsReal() throws Exception {
        assertTrue(queryBoolean(standby.getPostgresDatabase(), "SELECT pg_is_in_recovery()"));
        assertTrue(
                queryBoolean(standby.getPostgresDatabase(), "SELECT status = 'streaming' FROM pg_stat_wal_receiver"),
                "the standby streams from the primary");
    }

    @Test
    void tokensKeepGrowingAcrossAServerRestart() throws Exception {
        try (LeaseManager leases = LeaseManager.create(primary.getPostgresDatabase())) {
            Lease after =
                    leases.tryAcquire("after-restart", Duration.ofSeconds(30)).orElseThrow();
            assertTrue(
                    after.token() > tokenBeforeRestart,
                    after.token() + " after a restart, " + tokenBeforeRestart + " before");
        }
    }

    /** A manager configured with the standby is refused on its first grant, by the explicit check. */
    @Test
    void aManagerOnTheStandbyRefusesToGrant() throws Exception {
        awaitReplayOf("fenced_lease");
        try (LeaseManager leases = LeaseManager.create(standby.getPostgresDatabase())) {
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("job", Duration.ofSeconds(30)));
            assertStandbyRefusal(e, "job");
        }
    }

    /**
     * A manager whose DataSource starts landing on the standby after it has been working (a DNS name or
     * proxy that now points at a follower): the grant statement itself is refused by the server, and the
     * store finds out why.
     */
    @Test
    void aManagerWhoseConnectionsLandOnTheStandbyLaterRefusesToGrant() throws Exception {
        ProbeDataSource moving = new ProbeDataSource(primary.getPostgresDatabase());
        try (LeaseManager leases = LeaseManager.create(moving)) {
            leases.tryAcquire("moving-1", Duration.ofSeconds(30)).orElseThrow().close();
            moving.pointAt(standby.getPostgresDatabase());
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("moving-2", Duration.ofSeconds(30)));
            assertStandbyRefusal(e, "moving-2");
            assertEquals("25006", ((SQLException) e.getCause()).getSQLState(), "the server's own refusal is the cause");
            moving.pointAt(primary.getPostgresDatabase());
        }
    }

    private static void assertStandbyRefusal(FencingException e, String lease) {
        assertEquals(FencingException.LEASE_STORE, e.getSQLState());
        String m = e.getMessage();
        assertTrue(m.contains("'" + lease + "'"), m);
        assertTrue(m.contains("standby") && m.contains("pg_is_in_recovery()"), m);
        assertTrue(m.contains("asynchronous follower") && m.contains("same token again after a failover"), m);
        assertTrue(m.contains("primary"), m);
    }

    /** Replication is asynchronous: wait (bounded) until the standby has replayed the lease table. */
    private static void awaitReplayOf(String table) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!queryBoolean(standby.getPostgresDatabase(), "SELECT to_regclass('" + table + "') IS NOT NULL")) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the standby did not replay " + table + " within 20 s");
            }
            Thread.sleep(50);
        }
    }

    private static boolean queryBoolean(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (name.equals("postmaster.pid") || name.equals("epg-lock")) {
                    continue;
                }
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }
}
