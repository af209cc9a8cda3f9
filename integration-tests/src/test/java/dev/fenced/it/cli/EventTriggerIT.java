package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 6: {@code install --event-trigger} adds event triggers that NOTIFY on DDL, and a runtime listens on
 * one connection of its own and reads the catalog again on each notice. The DataSource here reads the catalog
 * periodically only once an hour ({@code fenced.catalogRefresh=3600s}), and the view it writes through was already
 * seen by its last read (as reading an unprotected table), so nothing but the notice can tell it that another
 * session has redefined the view over a protected table.
 */
@Tag("server-sensitive")
class EventTriggerIT {

    private static final String NOTICES = "fenced.catalog.notices";
    private static final String LISTENER = "fenced-ddl-listener";

    private String adminUrl;

    @BeforeEach
    void database() {
        adminUrl = CliServer.createDatabase();
        CliServer.execute(
                adminUrl,
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE scratch (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 10, 20)",
                "CREATE VIEW v AS SELECT * FROM scratch");
    }

    @Test
    void installAddsTheTriggersOnceAndPrintsThem() throws SQLException {
        Cli.Result print = Cli.run("install", "--url", adminUrl, "--tables", "totals", "--event-trigger", "--print");
        assertEquals(0, print.exit(), print::toString);
        for (String expected : new String[] {
            "-- run by a superuser",
            "CREATE OR REPLACE FUNCTION public.fenced_ddl_notify() RETURNS pg_catalog.event_trigger",
            "SET search_path TO pg_catalog, pg_temp",
            "pg_catalog.pg_notify('fenced_ddl', tg_tag)",
            "CREATE EVENT TRIGGER fenced_ddl_notify ON ddl_command_end EXECUTE FUNCTION public.fenced_ddl_notify()",
            "CREATE EVENT TRIGGER fenced_ddl_drop_notify ON sql_drop EXECUTE FUNCTION public.fenced_ddl_notify()"
        }) {
            assertTrue(print.out().contains(expected), () -> "missing: " + expected + "\n" + print.out());
        }
        assertEquals(0, eventTriggers(), "--print changed the database");

        Cli.Result install = Cli.run("install", "--url", adminUrl, "--tables", "totals", "--event-trigger");
        assertEquals(0, install.exit(), install::toString);
        assertTrue(install.out().contains("event triggers fenced_ddl_notify (ddl_command_end)"), install::toString);
        assertEquals(2, eventTriggers());
        Cli.Result again = Cli.run("install", "--url", adminUrl, "--tables", "totals", "--event-trigger");
        assertEquals(0, again.exit(), again::toString);
        assertEquals(2, eventTriggers());
        Cli.Result printAgain =
                Cli.run("install", "--url", adminUrl, "--tables", "totals", "--event-trigger", "--print");
        assertFalse(printAgain.out().contains("CREATE EVENT TRIGGER"), printAgain::toString);
    }

    @Test
    void aViewRedefinedByAnotherSessionIsRefusedWithoutWaitingForTheRefresh() throws Exception {
        install();
        FencedDataSource ds = new FencedDataSource(fencedUrl());
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(30)) {
                // v reads an unprotected table: fenced lets the write through, and has now seen the name v
                assertEquals(0, s.executeUpdate("UPDATE v SET amount = 1"));
            }
            awaitListening(ds);
            long before = notices(ds);
            CliServer.execute(adminUrl, "CREATE OR REPLACE VIEW v AS SELECT * FROM totals");
            assertTrue(
                    awaitNotice(ds, before, 10_000),
                    "no notice within 10 s of the DDL: fenced would learn of it only at the catalog refresh (1 h)");
            try (FencingScope ignored = Fencing.bind(9)) {
                UnsupportedStatementException e = assertThrows(
                        UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE v SET amount = 0"));
                assertTrue(e.getMessage().contains("reads a protected table"), e::getMessage);
            }
        }
        assertEquals(10, queryLong("SELECT amount FROM totals"));
    }

    @Test
    void oneConnectionListensForTheDataSourceAndIsOpenedAgainWhenLost() throws Exception {
        install();
        FencedDataSource ds = new FencedDataSource(fencedUrl());
        List<Connection> open = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                open.add(ds.getConnection());
            }
            awaitListening(ds);
            assertEquals(1, queryLong(listeners("count(*)")), "one listening connection for the DataSource");
            long pid = queryLong(listeners("min(pid)"));
            CliServer.execute(adminUrl, "SELECT pg_terminate_backend(" + pid + ")");
            awaitListening(ds); // heard again: the listener opened a new connection and listens on it
            assertEquals(1, queryLong(listeners("count(*)")));
            assertNotEquals(pid, queryLong(listeners("min(pid)")));
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
    }

    /**
     * The window, DDL commit to fenced knowing: 100 DDL statements by another session, each timed from the moment
     * its commit is acknowledged to that session to the moment the runtime has marked its catalog read out of date
     * (the notice counter moves). Recorded and printed (docs/guarantees.md quotes it), not asserted: a timing.
     */
    @Test
    void theWindowFromCommitToFencedKnowing() throws Exception {
        install();
        FencedDataSource ds = new FencedDataSource(fencedUrl());
        try (Connection c = ds.getConnection()) {
            awaitListening(ds);
        }
        List<Long> fromAck = new ArrayList<>();
        List<Long> fromSend = new ArrayList<>();
        try (Connection admin = DriverManager.getConnection(adminUrl);
                Statement s = admin.createStatement()) {
            for (int i = 0; i < 100; i++) {
                long before = notices(ds);
                long sent = System.nanoTime();
                s.execute("COMMENT ON VIEW v IS 'round " + i + "'");
                long acknowledged = System.nanoTime();
                while (notices(ds) == before) {
                    assertTrue(System.nanoTime() - sent < TimeUnit.SECONDS.toNanos(10), "no notice of DDL " + i);
                    Thread.onSpinWait();
                }
                long heard = System.nanoTime();
                fromAck.add(Math.max(0, heard - acknowledged));
                fromSend.add(heard - sent);
            }
        }
        System.out.printf(
                "event trigger window over 100 DDL statements: commit acknowledged -> fenced knows: median %.3f ms,"
                        + " max %.3f ms; statement sent -> fenced knows: median %.3f ms, max %.3f ms%n",
                median(fromAck), max(fromAck), median(fromSend), max(fromSend));
    }

    private void install() {
        Cli.Result install = Cli.run("install", "--url", adminUrl, "--tables", "totals", "--event-trigger");
        assertEquals(0, install.exit(), install::toString);
    }

    private String fencedUrl() {
        return "jdbc:fenced:" + adminUrl.substring("jdbc:".length()) + (adminUrl.contains("?") ? "&" : "?")
                + "fenced.tables=totals&fenced.catalogRefresh=3600s";
    }

    /**
     * Returns once the DataSource's listener hears DDL: the listener starts beside the first connect, so a DDL may
     * come before it listens (the runtime then reads again anyway, but no notice is counted); each try runs one.
     */
    private void awaitListening(FencedDataSource ds) throws SQLException {
        for (int i = 0; i < 60; i++) {
            long before = notices(ds);
            CliServer.execute(adminUrl, "COMMENT ON TABLE scratch IS 'ping " + i + "'");
            if (awaitNotice(ds, before, 1_000)) {
                return;
            }
        }
        throw new AssertionError("the DataSource's listener never heard the DDL");
    }

    /** True once the notice counter has moved past {@code before}, false after {@code millis}. */
    private static boolean awaitNotice(FencedDataSource ds, long before, long millis) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (notices(ds) == before) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100)); // polling a counter: nothing to wait on
        }
        return true;
    }

    private static long notices(FencedDataSource ds) throws SQLException {
        return FencedStats.counters(ds).getOrDefault(NOTICES, 0L);
    }

    private static String listeners(String what) {
        return "SELECT " + what + " FROM pg_stat_activity WHERE datname = current_database() AND application_name = '"
                + LISTENER + "'";
    }

    private long eventTriggers() {
        return queryLong("SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'fenced_ddl%'");
    }

    private long queryLong(String sql) {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double median(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2e6;
    }

    private static double max(List<Long> nanos) {
        return Collections.max(nanos) / 1e6;
    }
}
