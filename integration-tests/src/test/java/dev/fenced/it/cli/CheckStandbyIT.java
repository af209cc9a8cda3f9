package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.lease.fault.PgServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code check} against a real streaming replica pair: on the standby it says so and exits 1 (its own
 * replication and durability settings are not the ones writes meet; the primary must be checked), while the
 * tables it reads there are the primary's; on the primary it names the standby, asynchronous and then
 * synchronous; on the promoted standby it reports a primary.
 */
class CheckStandbyIT {

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
        if (root != null) {
            PgServer.delete(root);
        }
    }

    @Test
    void standbyPrimaryAndPromotion() throws Exception {
        root = Files.createTempDirectory("fenced-check-standby-");
        primary = PgServer.init(root.resolve("primary"), Map.of("wal_keep_size", "'64MB'"))
                .start();
        primary.execute("CREATE TABLE totals (id int PRIMARY KEY, amount int, last_token bigint)");
        standby = primary.startStandby(root.resolve("standby"), Map.of());

        Cli.Result onStandby = Cli.run("check", "--url", standby.url("postgres"), "--tables", "totals");
        assertEquals(1, onStandby.exit(), onStandby::toString);
        String out = onStandby.out();
        assertTrue(out.contains("missing standby (in recovery), PostgreSQL "), out);
        assertTrue(
                out.contains(": fenced's lease store refuses to grant tokens here and writes fail; writers and"
                        + " leases must use the primary, and check must run against it (a standby's synchronous_commit and"
                        + " replication are not the ones writes meet)"),
                out);
        assertTrue(out.contains("ok      public.totals: fence column last_token is bigint"), out);
        assertTrue(out.contains("table totals (fence column last_token, mode enforce): enforce"), out);
        assertTrue(out.contains("1 of 1 protected tables ready for enforce mode; needs action"), out);
        Cli.Result json = Cli.run("check", "--url", standby.url("postgres"), "--tables", "totals", "--format", "json");
        assertEquals(1, json.exit(), json::toString);
        assertTrue(json.out().contains("\"ready\": false"), json::toString);

        primary.awaitTrue("SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'");
        Cli.Result async = Cli.run("check", "--url", primary.url("postgres"), "--tables", "totals");
        assertEquals(0, async.exit(), async::toString);
        assertTrue(async.out().contains("ok      primary, PostgreSQL "), async::toString);
        assertTrue(
                async.out()
                        .contains(
                                "warn    replication: 1 standby(s), all asynchronous"
                                        + " (synchronous_standby_names is empty): after a failover the newest writes may be missing"),
                async::toString);

        primary.execute("ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()");
        primary.awaitTrue("SELECT count(*) = 1 FROM pg_stat_replication WHERE sync_state = 'sync'");
        Cli.Result sync = Cli.run("check", "--url", primary.url("postgres"), "--tables", "totals");
        assertEquals(0, sync.exit(), sync::toString);
        assertTrue(
                sync.out()
                        .contains("info    replication: 1 standby(s), 1 synchronous"
                                + " (synchronous_standby_names = '*')"),
                sync::toString);

        primary.execute("ALTER SYSTEM RESET synchronous_standby_names", "SELECT pg_reload_conf()");
        standby.promote();
        Cli.Result promoted = Cli.run("check", "--url", standby.url("postgres"), "--tables", "totals");
        assertEquals(0, promoted.exit(), promoted::toString);
        assertTrue(promoted.out().contains("ok      primary, PostgreSQL "), promoted::toString);
        assertTrue(promoted.out().contains("info    replication: no standby connected"), promoted::toString);
    }
}
