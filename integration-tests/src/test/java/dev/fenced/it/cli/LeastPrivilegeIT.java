package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 24: least privilege that works. The application's role owns nothing, may create nothing anywhere (no CREATE
 * on any schema, no TEMP on the database) and has only the privileges the application needs on its table. Before
 * {@code install} it cannot connect (fenced's objects are missing and it may not create them) and {@code check} run
 * as it says so; after {@code install --grant-to} it connects, takes leases, writes fenced, is refused stale, its
 * deletes leave tombstones that refuse a stale re-insert, and {@code check} says ready.
 */
@Tag("server-sensitive")
class LeastPrivilegeIT {

    private String adminUrl;
    private String appUrl;
    private String role;

    @BeforeEach
    void database() {
        adminUrl = CliServer.createDatabase();
        String db = adminUrl.substring(adminUrl.indexOf('/', "jdbc:postgresql://".length()) + 1)
                .replaceAll("\\?.*", "");
        role = "fenced_app_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
        CliServer.execute(
                adminUrl,
                "CREATE TABLE accounts (id int PRIMARY KEY, balance int, last_token bigint)",
                "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
                "REVOKE TEMP ON DATABASE " + db + " FROM PUBLIC",
                "CREATE ROLE " + role + " LOGIN PASSWORD 'app-secret'",
                "GRANT SELECT, INSERT, UPDATE, DELETE ON accounts TO " + role);
        appUrl = asRole(adminUrl, role, "app-secret");
    }

    /** {@code url} logging in as {@code user}. */
    static String asRole(String url, String user, String password) {
        String base = url.replaceAll("([?&])(user|password)=[^&]*", "$1")
                .replaceAll("[?&]+$", "")
                .replace("?&", "?");
        return base + (base.contains("?") ? "&" : "?") + "user=" + user + "&password=" + password;
    }

    private String fencedAppUrl() {
        return "jdbc:fenced:" + appUrl.substring("jdbc:".length()) + "&fenced.tables=accounts";
    }

    @Test
    void theRoleHasNoCreateAndNoTemp() throws SQLException {
        try (Connection c = DriverManager.getConnection(appUrl);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT has_schema_privilege('public', 'CREATE'),"
                        + " has_database_privilege(current_database(), 'TEMP'), rolsuper FROM pg_roles"
                        + " WHERE rolname = current_user")) {
            rs.next();
            assertFalse(rs.getBoolean(1), "CREATE on public");
            assertFalse(rs.getBoolean(2), "TEMP");
            assertFalse(rs.getBoolean(3), "superuser");
        }
    }

    @Test
    void beforeInstallTheRoleCannotConnectAndCheckSaysSo() {
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(fencedAppUrl()));
        assertTrue(e.getMessage().contains("permission denied"), e::getMessage);
        Cli.Result check = Cli.run("check", "--url", appUrl, "--tables", "accounts");
        assertEquals(1, check.exit(), check::toString);
        assertFalse(check.out().contains("1 of 1 protected tables ready"), check::toString);
        assertTrue(check.out().contains("role " + role + " lacks what it needs: the tombstone table"), check::toString);
        assertTrue(check.out().contains("fenced install"), check::toString);
    }

    @Test
    void checkAsTheSuperuserWarnsButAnAdministratorIsNotBlocked() {
        Cli.Result check = Cli.run("check", "--url", adminUrl, "--tables", "accounts");
        assertTrue(check.out().contains("should not have: it is a superuser"), check::toString);
    }

    @Test
    void roleCheckRefuseFailsTheSuperusersConnectAndLetsTheLeastPrivilegedRoleIn() throws SQLException {
        String admin = "jdbc:fenced:" + adminUrl.substring("jdbc:".length()) + (adminUrl.contains("?") ? "&" : "?")
                + "fenced.tables=accounts&fenced.roleCheck=refuse";
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(admin));
        assertEquals("FN011", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("it is a superuser"), e::getMessage);
        assertTrue(e.getMessage().contains("fenced.roleCheck=off"), e::getMessage);
        Cli.Result install = Cli.run("install", "--url", adminUrl, "--tables", "accounts", "--grant-to", role);
        assertEquals(0, install.exit(), install::toString);
        try (Connection c = DriverManager.getConnection(fencedAppUrl() + "&fenced.roleCheck=refuse")) {
            assertTrue(c.isValid(5));
        }
    }

    @Test
    void checkAsARoleThatCannotWriteTheTableIsNotReady() {
        Cli.Result install = Cli.run("install", "--url", adminUrl, "--tables", "accounts", "--grant-to", role);
        assertEquals(0, install.exit(), install::toString);
        CliServer.execute(adminUrl, "REVOKE UPDATE, INSERT, DELETE ON accounts FROM " + role);
        Cli.Result check = Cli.run("check", "--url", appUrl, "--tables", "accounts");
        assertEquals(1, check.exit(), check::toString);
        assertTrue(check.out().contains("it cannot write the table fenced"), check::toString);
        assertFalse(check.out().contains("1 of 1 protected tables ready"), check::toString);
    }

    @Test
    void afterInstallTheRoleConnectsLeasesWritesIsRefusedStaleAndTombstonesWork() throws SQLException {
        Cli.Result install = Cli.run("install", "--url", adminUrl, "--tables", "accounts", "--grant-to", role);
        assertEquals(0, install.exit(), install::toString);
        assertTrue(
                install.out().contains("GRANT SELECT ON TABLE public.fenced_token_domain TO " + role),
                install::toString);
        exercise();
    }

    @Test
    void thePrintedSqlRunByAMigrationToolInstallsTheSame() throws SQLException {
        Cli.Result print = Cli.run("install", "--url", adminUrl, "--tables", "accounts", "--grant-to", role, "--print");
        assertEquals(0, print.exit(), print::toString);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT to_regclass('public.fenced_tombstone') IS NULL,"
                        + " to_regclass('public.fenced_lease') IS NULL")) {
            rs.next();
            assertTrue(rs.getBoolean(1) && rs.getBoolean(2), "--print changed the database");
        }
        String sql = print.out();
        for (String expected : new String[] {
            "CREATE TABLE IF NOT EXISTS public.fenced_tombstone",
            "SET search_path TO pg_catalog, pg_temp",
            "CREATE OR REPLACE TRIGGER fenced_tombstone_check",
            "INSERT INTO public.fenced_token_domain",
            "CREATE TABLE IF NOT EXISTS \"public\".\"fenced_lease\"",
            "CREATE INDEX IF NOT EXISTS \"fenced_lease_token_idx\" ON \"public\".\"fenced_lease\" (token)",
            "GRANT USAGE, SELECT ON SEQUENCE \"public\".\"fenced_lease_token_seq\" TO " + role
        }) {
            assertTrue(sql.contains(expected), () -> "missing: " + expected + "\n" + sql);
        }
        CliServer.execute(adminUrl, sql);
        exercise();
    }

    @Test
    void badInputIsUsage() throws SQLException {
        Cli.Result trigger = Cli.run("install", "--url", appUrl, "--tables", "accounts", "--event-trigger");
        assertEquals(2, trigger.exit(), trigger::toString);
        assertTrue(trigger.err().contains("install --event-trigger needs a superuser"), trigger::toString);
        trigger.oneLineError();
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_event_trigger")) {
            rs.next();
            assertEquals(0, rs.getLong(1), "nothing installed without a superuser");
        }
        Cli.Result noRole = Cli.run("install", "--url", adminUrl, "--tables", "accounts", "--grant-to", "nobody_here");
        assertEquals(2, noRole.exit(), noRole::toString);
        assertTrue(noRole.err().contains("no such role"), noRole::toString);
        Cli.Result noTables = Cli.run("install", "--url", adminUrl);
        assertEquals(2, noTables.exit(), noTables::toString);
        Cli.Result noUrl = Cli.run("install", "--tables", "accounts");
        assertEquals(2, noUrl.exit(), noUrl::toString);
    }

    /** What the application does with its role, all of it through fenced. */
    private void exercise() throws SQLException {
        PGSimpleDataSource store = new PGSimpleDataSource();
        store.setUrl(appUrl);
        try (LeaseManager leases = LeaseManager.create(store);
                Connection c = DriverManager.getConnection(fencedAppUrl());
                Statement s = c.createStatement()) {
            long older;
            try (Lease first =
                    leases.tryAcquire("accounts-job", Duration.ofSeconds(30)).orElseThrow()) {
                older = first.token();
                try (FencingScope ignored = Fencing.bind(first.token())) {
                    s.executeUpdate("INSERT INTO accounts (id, balance) VALUES (1, 10), (2, 20)");
                }
            }
            try (Lease second =
                    leases.tryAcquire("accounts-job", Duration.ofSeconds(30)).orElseThrow()) {
                assertTrue(second.token() > older, "tokens grow");
                try (FencingScope ignored = Fencing.bind(second.token())) {
                    assertEquals(1, s.executeUpdate("UPDATE accounts SET balance = 11 WHERE id = 1"));
                    assertEquals(1, s.executeUpdate("DELETE FROM accounts WHERE id = 2"));
                }
            }
            // a token older than the newer holder's, as a paused holder would still have it (the lease's own token
            // would be refused in the JVM already, as lost)
            try (FencingScope ignored = Fencing.bind(older - 1)) {
                assertThrows(
                        StaleTokenException.class,
                        () -> s.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 1"));
                // the row the newer holder deleted does not come back under the older token
                assertThrows(
                        StaleTokenException.class,
                        () -> s.executeUpdate("INSERT INTO accounts (id, balance) VALUES (2, 0)"));
            }
        }
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT string_agg(id || ':' || balance, ',' ORDER BY id) FROM accounts")) {
            rs.next();
            assertEquals("1:11", rs.getString(1));
        }
    }
}
