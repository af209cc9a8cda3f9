package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Modes, the first-connect schema check, and what the catalog teaches the driver. */
@Tag("server-sensitive")
class ModesAndSchemaIT {

    static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE nofence (id int PRIMARY KEY, amount bigint)",
                "CREATE TABLE textfence (id int PRIMARY KEY, last_token text)",
                "CREATE VIEW totals_v AS SELECT id, amount FROM totals",
                "CREATE TABLE measurements (id int, at date, value int, last_token bigint) PARTITION BY RANGE (at)",
                "CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')");
    }

    @BeforeEach
    void rows() {
        db.execute("TRUNCATE totals", "INSERT INTO totals VALUES (1, 10, 5)");
    }

    private static int update(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    @Test
    void observeModePassesWritesWithoutATokenAndCountsThem() throws SQLException {
        String url = db.fencedUrl("fenced.tables=totals", "fenced.mode=observe");
        long before = FencedStats.counters().get("fenced.writes.unfenced.observed");
        assertEquals(1, update(url, "UPDATE totals SET amount = 11"));
        assertEquals(before + 1, FencedStats.counters().get("fenced.writes.unfenced.observed"));
        assertEquals(5, db.queryLong("SELECT last_token FROM totals"));
        long refusedBefore = FencedStats.counters().get("fenced.statements.unsupported.observed");
        update(url, "TRUNCATE totals");
        assertEquals(refusedBefore + 1, FencedStats.counters().get("fenced.statements.unsupported.observed"));
    }

    @Test
    void observeModeRecordsTheHighestTokenButNeverRefuses() throws SQLException {
        String url = db.fencedUrl("fenced.tables=totals", "fenced.mode=observe");
        try (FencingScope ignored = Fencing.bind(3)) {
            assertEquals(1, update(url, "UPDATE totals SET amount = 12"));
        }
        assertEquals(12, db.queryLong("SELECT amount FROM totals"));
        assertEquals(5, db.queryLong("SELECT last_token FROM totals"), "the column keeps the highest token");
        try (FencingScope ignored = Fencing.bind(8)) {
            update(url, "UPDATE totals SET amount = 13");
        }
        assertEquals(8, db.queryLong("SELECT last_token FROM totals"));
    }

    @Test
    void offModeLeavesEverythingAlone() throws SQLException {
        String url = db.fencedUrl("fenced.tables=totals", "fenced.mode=off");
        assertEquals(1, update(url, "UPDATE totals SET amount = 14, last_token = 1"));
        update(url, "TRUNCATE totals");
    }

    @Test
    void perTableModesOverrideTheGlobalOne() throws SQLException {
        String url = db.fencedUrl("fenced.tables=totals,nofence", "fenced.table.nofence.mode=off");
        try (FencingScope ignored = Fencing.bind(4)) {
            assertThrows(StaleTokenException.class, () -> update(url, "UPDATE totals SET amount = 1"));
            update(url, "INSERT INTO nofence VALUES (1, 1) ON CONFLICT DO NOTHING");
        }
    }

    @Test
    void aMissingOrMistypedFenceColumnFailsTheConnectAndSaysWhat() {
        FencingException missing = assertThrows(
                FencingException.class,
                () -> DriverManager.getConnection(db.fencedUrl("fenced.tables=totals,nofence"))
                        .close());
        assertEquals(FencingException.SCHEMA, missing.getSQLState());
        assertTrue(
                missing.getMessage()
                        .contains("table public.nofence has no column last_token"
                                + " (add it: ALTER TABLE public.nofence ADD COLUMN last_token bigint)"),
                missing.getMessage());
        FencingException typed = assertThrows(
                FencingException.class,
                () -> DriverManager.getConnection(db.fencedUrl("fenced.tables=textfence"))
                        .close());
        assertTrue(
                typed.getMessage().contains("column last_token of table public.textfence is text"), typed.getMessage());
        FencingException column = assertThrows(
                FencingException.class,
                () -> DriverManager.getConnection(db.fencedUrl("fenced.tables=totals", "fenced.column=fence"))
                        .close());
        assertTrue(column.getMessage().contains("table public.totals has no column fence"), column.getMessage());
    }

    @Test
    void writesThroughAViewOfAProtectedTableAreRefused() throws SQLException {
        try (FencingScope ignored = Fencing.bind(9)) {
            UnsupportedStatementException e = assertThrows(
                    UnsupportedStatementException.class,
                    () -> update(db.fencedUrl("fenced.tables=totals"), "UPDATE totals_v SET amount = 1"));
            assertTrue(e.getMessage().contains("view public.totals_v reads a protected table"), e.getMessage());
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals"));
    }

    @Test
    void partitionsOfAProtectedTableAreProtected() throws SQLException {
        String url = db.fencedUrl("fenced.tables=measurements");
        try (FencingScope ignored = Fencing.bind(20)) {
            update(url, "INSERT INTO measurements (id, at, value) VALUES (1, '2026-05-01', 1)");
        }
        try (FencingScope ignored = Fencing.bind(19)) {
            assertThrows(
                    StaleTokenException.class,
                    () -> update(url, "UPDATE measurements_2026 SET value = 2 WHERE id = 1"));
        }
        assertThrows(dev.fenced.UnfencedWriteException.class, () -> update(url, "DELETE FROM measurements_2026"));
        assertEquals(20, db.queryLong("SELECT last_token FROM measurements_2026"));
    }

    @Test
    void readsDdlAndLockingReadsPassUntouched() throws SQLException {
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try (var rs = s.executeQuery("SELECT amount FROM totals WHERE id = 1 FOR UPDATE")) {
                assertTrue(rs.next());
            }
            c.commit();
            c.setAutoCommit(true);
            s.execute("CREATE INDEX IF NOT EXISTS totals_amount ON totals (amount)");
            s.execute("COMMENT ON TABLE totals IS 'fenced'");
            assertEquals("SELECT amount FROM totals FOR UPDATE", c.nativeSQL("SELECT amount FROM totals FOR UPDATE"));
            UnsupportedStatementException e =
                    assertThrows(UnsupportedStatementException.class, () -> c.nativeSQL("TRUNCATE totals"));
            assertTrue(e.getMessage().contains("TRUNCATE"), e.getMessage());
        }
    }
}
