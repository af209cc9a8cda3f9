package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 24, item 5: the classification holes an outsider found, each through a plain fenced {@code Statement} in
 * enforce mode with a stale token bound (the row holds token 20, the writer 5). Each attack must be refused by
 * fenced and leave the protected row as it was.
 */
@Tag("server-sensitive")
class TrustBoundaryIT {

    private static final String STALE_UPDATE = "UPDATE totals SET amount = 0, last_token = 0 WHERE id = 1";

    private static TestDatabase fresh() {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint, zz bigint)",
                "INSERT INTO totals VALUES (1, 10, 20, 0)");
        return db;
    }

    private static void assertUntouched(TestDatabase db) {
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
        assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE id = 1"));
    }

    private static Connection connect(TestDatabase db) throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=totals", "fenced.mode=enforce"));
    }

    /** Runs {@code sql}; true when it ran, false when fenced or PostgreSQL refused it. */
    private static boolean tryRun(Statement s, String sql) {
        try {
            s.execute(sql);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "EXPLAIN (\"analyze\") ",
                "EXPLAIN (\"analyze\" true) ",
                "EXPLAIN (U&\"analyze\") ",
                "EXPLAIN (U&\"\\0061nalyze\") ",
                "EXPLAIN (costs off, \"analyze\" 'on') ",
                "EXPLAIN (analyze 1) ",
                "explain (Analyse, verbose) ",
                "EXPLAIN (analyze false, analyze) ",
                "EXPLAIN ANALYZE ",
            })
    void explainThatExecutesAWriteIsRefused(String explain) throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            UnsupportedStatementException e =
                    assertThrows(UnsupportedStatementException.class, () -> s.execute(explain + STALE_UPDATE));
            assertTrue(e.getMessage().contains("totals"), e.getMessage());
        }
        assertUntouched(db);
    }

    @Test
    void explainThatDoesNotExecutePasses() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            for (String explain : List.of(
                    "EXPLAIN ",
                    "EXPLAIN (analyze false) ",
                    "EXPLAIN (\"analyze\" 'off') ",
                    "EXPLAIN (analyze 0, costs) ",
                    "EXPLAIN (verbose) ")) {
                s.execute(explain + STALE_UPDATE);
            }
        }
        assertUntouched(db);
    }

    @Test
    void explainAnalyzeInABatchEntryIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            try {
                s.addBatch("EXPLAIN (\"analyze\") " + STALE_UPDATE);
                s.executeBatch();
            } catch (SQLException expected) {
                assertTrue(expected.getMessage().contains("totals"), expected.getMessage());
            }
        }
        assertUntouched(db);
    }

    @Test
    void explainAnalyzeOfCreateTableAsWhoseCteWritesIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.execute("EXPLAIN (\"analyze\") CREATE TABLE snap AS WITH d AS (" + STALE_UPDATE
                            + " RETURNING id) SELECT * FROM d"));
        }
        assertUntouched(db);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ALTER INDEX totals RENAME TO t_x",
                "ALTER INDEX IF EXISTS totals RENAME TO t_x",
                "ALTER VIEW totals RENAME TO t_x",
                "ALTER MATERIALIZED VIEW totals RENAME TO t_x",
                "ALTER SEQUENCE totals RENAME TO t_x",
                "ALTER FOREIGN TABLE totals RENAME TO t_x",
                "ALTER VIEW totals RENAME COLUMN last_token TO old",
                "ALTER MATERIALIZED VIEW totals RENAME COLUMN last_token TO old",
                "ALTER FOREIGN TABLE totals RENAME last_token TO old",
                "ALTER VIEW totals SET SCHEMA elsewhere",
                "ALTER SEQUENCE totals SET SCHEMA elsewhere",
            })
    void alterUnderAnotherCommandWordIsClassifiedAsAlterTable(String alter) throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE SCHEMA elsewhere");
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            UnsupportedStatementException e = assertThrows(UnsupportedStatementException.class, () -> s.execute(alter));
            assertTrue(e.getMessage().contains("totals"), e.getMessage());
            // had it run: the rows under another name, or the fence column swapped, take a stale write
            tryRun(s, "UPDATE t_x SET amount = 0, last_token = 0 WHERE id = 1");
            tryRun(s, "UPDATE elsewhere.totals SET amount = 0, last_token = 0 WHERE id = 1");
            tryRun(s, "ALTER VIEW totals RENAME COLUMN zz TO last_token");
            tryRun(s, STALE_UPDATE);
        }
        assertUntouched(db);
    }

    @Test
    void theSwapOfTheFenceColumnThroughAlterViewIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            tryRun(s, "ALTER VIEW totals RENAME COLUMN last_token TO old");
            tryRun(s, "ALTER VIEW totals RENAME COLUMN zz TO last_token");
            tryRun(s, "UPDATE totals SET amount = 0 WHERE id = 1");
        }
        assertUntouched(db);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "DROP FUNCTION fenced_tombstone_check() CASCADE",
                "DROP FUNCTION public.fenced_tombstone_check() CASCADE",
                "CREATE OR REPLACE FUNCTION fenced_tombstone_check() RETURNS trigger LANGUAGE plpgsql AS"
                        + " 'BEGIN RETURN NEW; END'",
                "CREATE TEMP TABLE fenced_tombstone (LIKE public.fenced_tombstone)",
                "DROP TABLE fenced_tombstone",
                "ALTER TABLE fenced_tombstone RENAME TO gone",
                "ALTER TABLE fenced_tombstone SET (fillfactor = 90)",
                "TRUNCATE fenced_tombstone",
                "DROP TABLE fenced_lease",
                "ALTER SEQUENCE fenced_lease_token_seq RESTART WITH 1",
                "DROP TRIGGER \"fenced_tombstone_check\" ON totals",
            })
    void ddlOnFencedsOwnObjectsIsRefusedOutsideAnUnfencedSection(String ddl) throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(5)) {
                tryRun(s, "DELETE FROM totals WHERE false"); // a first fenced DELETE: the tombstone objects exist
                UnsupportedStatementException e =
                        assertThrows(UnsupportedStatementException.class, () -> s.execute(ddl));
                assertTrue(e.getMessage().contains("fenced"), e.getMessage());
            }
        }
    }

    @Test
    void ddlOnFencedsOwnObjectsRunsInsideAnUnfencedSection() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = connect(db);
                Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(5)) {
                tryRun(s, "DELETE FROM totals WHERE false");
            }
            Fencing.unfenced(() -> {
                s.execute("ALTER TABLE fenced_tombstone SET (fillfactor = 90)");
                return null;
            });
        }
        assertEquals(
                1,
                db.queryLong("SELECT count(*) FROM pg_class WHERE relname = 'fenced_tombstone'"
                        + " AND reloptions::text LIKE '%fillfactor=90%'"));
    }

    /** Issue 24, item 8: a fenced URL or DataSource with no fenced.tables protected nothing and said it was fenced. */
    @Test
    void aFencedUrlOrDataSourceThatProtectsNothingIsRefused() throws Exception {
        TestDatabase db = fresh();
        FencingException e = assertThrows(FencingException.class, () -> DriverManager.getConnection(db.fencedUrl()));
        assertEquals(FencingException.NOTHING_PROTECTED, e.getSQLState());
        assertTrue(e.getMessage().contains("fenced.tables"), e.getMessage());
        PGSimpleDataSource raw = new PGSimpleDataSource();
        raw.setURL(db.rawUrl());
        FencingException wrapped =
                assertThrows(FencingException.class, () -> FencedDataSource.wrap(raw, new Properties()));
        assertEquals(FencingException.NOTHING_PROTECTED, wrapped.getSQLState());
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.mode=off"));
                Statement s = c.createStatement()) {
            s.execute("SELECT 1"); // unfenced on purpose: allowed
        }
        assertUntouched(db);
    }

    /**
     * A write to {@code v} resolves by the search path to a {@code public.v} another process made over the
     * protected table; an unrelated {@code other.v} known from the catalog read must not pass for it.
     */
    @Test
    void aNameIsLookedUpInTheSchemaTheWriteResolvesItTo() throws Exception {
        TestDatabase db = fresh();
        db.execute(
                "CREATE SCHEMA other", "CREATE TABLE other.v (id int PRIMARY KEY, amount bigint, last_token bigint)");
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            String write = "UPDATE v SET amount = 0, last_token = 0 WHERE id = 1";
            tryRun(s, write); // no v in the search path yet
            db.execute("CREATE VIEW public.v AS SELECT * FROM totals");
            tryRun(s, write);
            tryRun(s, "UPDATE v SET amount = 1 WHERE id = 1");
        }
        assertUntouched(db);
    }
}
