package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What is protected follows the schema: a view or partition created after the first connect is fenced
 * as soon as the DDL that made it ran through fenced, and within fenced.catalogRefresh when someone else
 * made it. (Found by running Flyway through the application's own pool.)
 */
@Tag("server-sensitive")
class CatalogRefreshIT {

    @Test
    void aViewCreatedThroughFencedIsRefusedFromTheNextStatementOn() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 10, 20)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement()) {
            s.execute("CREATE VIEW big_totals AS SELECT * FROM totals WHERE amount > 5");
            try (FencingScope ignored = Fencing.bind(9)) {
                UnsupportedStatementException e = assertThrows(
                        UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE big_totals SET amount = 0"));
                assertTrue(e.getMessage().contains("view public.big_totals reads a protected table"), e.getMessage());
            }
        }
        try (Connection other = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = other.createStatement();
                FencingScope ignored = Fencing.bind(9)) {
            assertThrows(
                    UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE big_totals SET amount = 0"));
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals"));
    }

    @Test
    void aPartitionAttachedLaterIsProtectedAtOnce() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE m (id int, at date, v int, last_token bigint) PARTITION BY RANGE (at)",
                "CREATE TABLE m_2026 PARTITION OF m FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=m"));
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE m_2027 PARTITION OF m FOR VALUES FROM ('2027-01-01') TO ('2028-01-01')");
            try (FencingScope ignored = Fencing.bind(30)) {
                s.executeUpdate("INSERT INTO m (id, at, v) VALUES (1, '2027-03-01', 1)");
            }
            try (FencingScope ignored = Fencing.bind(29)) {
                assertThrows(StaleTokenException.class, () -> s.executeUpdate("UPDATE m_2027 SET v = 2"));
            }
        }
        assertEquals(1, db.queryLong("SELECT v FROM m_2027"));
    }

    @Test
    void aViewCreatedBehindFencedsBackIsLearnedAtTheNextRefresh() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 10, 20)");
        try (Connection c =
                        DriverManager.getConnection(db.fencedUrl("fenced.tables=totals", "fenced.catalogRefresh=1ms"));
                Statement s = c.createStatement()) {
            s.executeQuery("SELECT 1").close();
            db.execute("CREATE VIEW quiet_totals AS SELECT * FROM totals");
            try (FencingScope ignored = Fencing.bind(9)) {
                assertThrows(
                        UnsupportedStatementException.class,
                        () -> s.executeUpdate("UPDATE quiet_totals SET amount = 0"));
            }
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals"));
    }

    @Test
    void aRefreshThatFindsNothingNewKeepsThePlans() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 10, 20)");
        String sql = "UPDATE totals SET amount = ? WHERE id = ? /* refresh keeps plans */";
        try (Connection c =
                        DriverManager.getConnection(db.fencedUrl("fenced.tables=totals", "fenced.catalogRefresh=1ms"));
                FencingScope ignored = Fencing.bind(30)) {
            long parsed = -1;
            for (int i = 0; i < 5; i++) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setLong(1, 100 + i);
                    ps.setInt(2, 1);
                    assertEquals(1, ps.executeUpdate());
                }
                if (i == 0) {
                    parsed = FencedStats.counters().get("fenced.rewrites.parsed");
                }
                Thread.sleep(5); // the catalog is read again before each of the next statements
            }
            assertEquals(
                    parsed,
                    FencedStats.counters().get("fenced.rewrites.parsed"),
                    "a catalog re-read that finds the same tables must not send the statement to the parser again");
        }
        assertEquals(104, db.queryLong("SELECT amount FROM totals"));
        assertEquals(30, db.queryLong("SELECT last_token FROM totals"));
    }
}
