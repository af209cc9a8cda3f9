package dev.fenced.it.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.WriterInventory;
import dev.fenced.internal.cli.Main;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The roll-out, end to end: an application with three writers (one under a lease, one without a token, one
 * sending a statement fenced cannot fence) runs in observe mode; the inventory names exactly the two that need
 * work, at their own methods; once they are fixed (a lease taken, the statement rewritten) the inventory finds
 * nothing and enforce mode refuses nothing.
 */
class RolloutIT {

    /** The application: three writers of the rollout_totals table. */
    static final class App {
        private final DataSource data;
        private final LeaseManager leases;
        private final boolean fixed;

        App(DataSource data, LeaseManager leases, boolean fixed) {
            this.data = data;
            this.leases = leases;
            this.fixed = fixed;
        }

        /** Already right: writes under the nightly lease. */
        void nightlyTotals() throws SQLException {
            try (Lease ignored = leases.acquire("rollout-nightly", Duration.ofSeconds(30), Duration.ofSeconds(5));
                    Connection c = data.getConnection();
                    PreparedStatement ps = c.prepareStatement("UPDATE rollout_totals SET amount = ? WHERE id = ?")) {
                ps.setLong(1, 100);
                ps.setInt(2, 1);
                ps.executeUpdate();
            }
        }

        /** Forgot the lease: its writes carry no token (fixed: takes one). */
        void manualCorrection() throws SQLException {
            Lease lease =
                    fixed ? leases.acquire("rollout-correction", Duration.ofSeconds(30), Duration.ofSeconds(5)) : null;
            try (Connection c = data.getConnection();
                    PreparedStatement ps = c.prepareStatement("UPDATE rollout_totals SET amount = ? WHERE id = ?")) {
                ps.setLong(1, 200);
                ps.setInt(2, 2);
                ps.executeUpdate();
            } finally {
                if (lease != null) {
                    lease.close();
                }
            }
        }

        /** Deletes through a cursor, which fenced cannot fence (fixed: a plain DELETE by key). */
        void purgeClosed() throws SQLException {
            try (Lease ignored = leases.acquire("rollout-purge", Duration.ofSeconds(30), Duration.ofSeconds(5));
                    Connection c = data.getConnection();
                    Statement s = c.createStatement()) {
                if (fixed) {
                    s.executeUpdate("DELETE FROM rollout_totals WHERE id = 3 AND closed");
                    return;
                }
                c.setAutoCommit(false);
                try {
                    s.execute("DECLARE closed_rows CURSOR FOR SELECT * FROM rollout_totals WHERE closed FOR UPDATE");
                    s.execute("FETCH closed_rows");
                    s.executeUpdate("DELETE FROM rollout_totals WHERE CURRENT OF closed_rows");
                    c.commit();
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }

        void runAll() throws SQLException {
            nightlyTotals();
            manualCorrection();
            purgeClosed();
        }
    }

    @Test
    void observeNamesTheTwoWritersThatNeedWorkAndAfterTheFixEnforceRefusesNothing(@TempDir Path dir) throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE rollout_totals (id int PRIMARY KEY, amount bigint, closed boolean NOT NULL DEFAULT false,"
                        + " last_token bigint)",
                "INSERT INTO rollout_totals VALUES (1, 0, false), (2, 0, false), (3, 0, true)");
        WriterInventory.clear();
        String app = App.class.getName();

        // 1. observe: the application as it is
        try (HikariDataSource observe = Pools.fenced(db, 2, "fenced.tables=rollout_totals", "fenced.mode=observe");
                LeaseManager leases = LeaseManager.create(observe)) {
            new App(observe, leases, false).runAll();
        }
        List<WriterInventory.Writer> writers = WriterInventory.writers("rollout_totals");
        Map<String, String> byKind = writers.stream()
                .collect(Collectors.toMap(
                        w -> w.kind().label(),
                        w -> w.callSite().substring(0, w.callSite().indexOf('('))));
        assertEquals(
                Map.of("no token", app + ".manualCorrection", "unfenceable", app + ".purgeClosed"),
                byKind,
                writers.toString());
        assertEquals(
                Set.of(
                        "UPDATE rollout_totals SET amount = ? WHERE id = ?",
                        "DELETE FROM rollout_totals WHERE CURRENT OF closed_rows"),
                writers.stream().map(WriterInventory.Writer::shape).collect(Collectors.toSet()));
        WriterInventory.TableState state = state();
        assertEquals("observe: 2 writers need work (1 without a token, 1 unfenceable)", state.state());
        String report = WriterInventory.markdown();
        assertTrue(report.contains(app + ".manualCorrection(") && report.contains(app + ".purgeClosed("), report);
        assertTrue(!report.contains("nightlyTotals"), report);

        // check reads the report the application wrote: both writers block enforce mode, named at their call sites
        for (String name : List.of("inventory.json", "inventory.md")) {
            Path written = dir.resolve(name);
            WriterInventory.writeReport(written);
            String[] check = check(db, written);
            assertEquals("1", check[0], check[1]);
            assertTrue(
                    check[1].contains("table rollout_totals (fence column last_token, mode observe): observe,"
                            + " 1 writer(s) without a token, 1 unfenceable"),
                    check[1]);
            assertTrue(
                    check[1].contains("missing writer without a token (no token) at " + app + ".manualCorrection("),
                    check[1]);
            assertTrue(check[1].contains("UPDATE rollout_totals SET amount = ? WHERE id = ?"), check[1]);
            assertTrue(
                    check[1].contains("missing unfenceable writer (")
                            && check[1].contains(" at " + app + ".purgeClosed(")
                            && check[1].contains("DELETE FROM rollout_totals WHERE CURRENT OF closed_rows"),
                    check[1]);
        }

        // audit of the application's write statements (as pg_stat_statements records them) says the same
        Path unfixedStatements = dir.resolve("unfixed.sql");
        Files.writeString(
                unfixedStatements,
                "UPDATE rollout_totals SET amount = $1 WHERE id = $2\n"
                        + "DELETE FROM rollout_totals WHERE CURRENT OF closed_rows\n");
        String[] audit = audit(db, unfixedStatements);
        assertEquals("1", audit[0], audit[1]);
        assertTrue(audit[1].contains("1 refused"), audit[1]);
        assertTrue(audit[1].contains("CURRENT OF"), audit[1]);

        // the same application in enforce mode would be refused twice
        try (HikariDataSource enforce = Pools.fenced(db, 2, "fenced.tables=rollout_totals");
                LeaseManager leases = LeaseManager.create(enforce)) {
            App unfixed = new App(enforce, leases, false);
            unfixed.nightlyTotals();
            assertThrows(UnfencedWriteException.class, unfixed::manualCorrection);
            assertThrows(UnsupportedStatementException.class, unfixed::purgeClosed);
        }

        // 2. the two writers fixed, observe again: nothing new
        WriterInventory.clear();
        try (HikariDataSource observe = Pools.fenced(db, 2, "fenced.tables=rollout_totals", "fenced.mode=observe");
                LeaseManager leases = LeaseManager.create(observe)) {
            new App(observe, leases, true).runAll();
        }
        assertEquals(List.of(), WriterInventory.writers("rollout_totals"));
        assertTrue(state().readyForEnforce(), state().toString());
        Path clean = dir.resolve("clean.json");
        WriterInventory.writeReport(clean);
        String[] check = check(db, clean);
        assertEquals("0", check[0], check[1]);
        assertTrue(
                check[1].contains("table rollout_totals (fence column last_token, mode observe): observe, ready for"
                        + " enforce"),
                check[1]);
        assertTrue(
                check[1].contains("mode observe in the application, 0 writer(s) without a token, 0 unfenceable"),
                check[1]);
        Path fixedStatements = dir.resolve("fixed.sql");
        Files.writeString(
                fixedStatements,
                "UPDATE rollout_totals SET amount = $1 WHERE id = $2\n"
                        + "DELETE FROM rollout_totals WHERE id = 3 AND closed\n");
        audit = audit(db, fixedStatements);
        assertEquals("0", audit[0], audit[1]);
        assertTrue(audit[1].contains("2 statement shape(s) reach protected tables, 0 refused"), audit[1]);

        // 3. enforce: nothing refused
        Map<String, Long> before = FencedStats.counters();
        try (HikariDataSource enforce = Pools.fenced(db, 2, "fenced.tables=rollout_totals");
                LeaseManager leases = LeaseManager.create(enforce)) {
            new App(enforce, leases, true).runAll();
        }
        Map<String, Long> after = FencedStats.counters();
        for (String refused : List.of(
                "fenced.writes.unfenced.refused",
                "fenced.statements.unsupported.refused",
                "fenced.writes.stale",
                "fenced.writes.lease_lost")) {
            assertEquals(before.get(refused), after.get(refused), refused);
        }
        assertTrue(after.get("fenced.writes.fenced") >= before.get("fenced.writes.fenced") + 3);
        assertEquals(List.of(), WriterInventory.writers("rollout_totals"));
    }

    /** {@code audit --statements FILE} against the test database: the exit status and what it printed. */
    private static String[] audit(TestDatabase db, Path statements) {
        return cli("audit", "--url", db.rawUrl(), "--tables", "rollout_totals", "--statements", statements.toString());
    }

    /** {@code check --inventory FILE} in observe mode against the test database. */
    private static String[] check(TestDatabase db, Path inventory) {
        return cli(
                "check",
                "--url",
                db.rawUrl(),
                "--tables",
                "rollout_totals",
                "--fenced.mode=observe",
                "--inventory",
                inventory.toString());
    }

    private static String[] cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(exit), out.toString(StandardCharsets.UTF_8)};
    }

    private static WriterInventory.TableState state() {
        return WriterInventory.tables().stream()
                .filter(t -> t.table().equals("rollout_totals"))
                .findFirst()
                .orElseThrow();
    }
}
