package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attacks on tombstones from outside: each tries to bring back, as a stale holder (token 5), a row a newer holder
 * (token 20) deleted, or to make the current holder fail.
 */
@Tag("server-sensitive")
class TombstoneAttackIT {

    static TestDatabase db;
    static HikariDataSource pool;
    static int runtimes;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE atk (id int PRIMARY KEY, v int, last_token bigint)",
                "CREATE TABLE atk_ts (at timestamptz PRIMARY KEY, v int, last_token bigint)");
        pool = Pools.fenced(db, 4, "fenced.tables=atk,atk_ts");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE atk, atk_ts",
                "INSERT INTO atk SELECT g, 0, 1 FROM generate_series(1, 200) g",
                "INSERT INTO atk_ts VALUES ('2026-01-01 00:00:00+00', 0, 1)");
    }

    static int run(long token, String... sql) throws SQLException {
        try (FencingScope ignored = Fencing.bind(token);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            int n = 0;
            for (String one : sql) {
                n = s.executeUpdate(one);
            }
            return n;
        }
    }

    static long count(String where) {
        return db.queryLong("SELECT count(*) FROM atk WHERE " + where);
    }

    /**
     * MERGE ... THEN DELETE was refused on a table with tombstones (the rows it deletes could not be picked out for
     * a tombstone); the check trigger now records exactly the rows it removed, with the token the MERGE handed over.
     */
    @Test
    void aMergeThatDeletesLeavesTombstonesForTheKeysItRemoved() throws SQLException {
        assertEquals(
                3,
                run(
                        20,
                        "MERGE INTO atk t USING (VALUES (11), (12), (999)) s (id) ON t.id = s.id"
                                + " WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 9)"),
                "two rows deleted and one inserted");
        assertEquals(0, count("id IN (11, 12)"));
        assertEquals(1, count("id = 999"), "the not-matched row was inserted");
        assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO atk (id, v) VALUES (11, 555)"));
        assertThrows(StaleTokenException.class, () -> run(19, "INSERT INTO atk (id, v) VALUES (12, 555)"));
        assertEquals(0, count("id IN (11, 12)"), "a holder older than the MERGE cannot bring the keys back");
        assertEquals(1, run(20, "INSERT INTO atk (id, v) VALUES (11, 556)"), "the deleter's own token may");
        assertEquals(
                0,
                run(
                        5,
                        "MERGE INTO atk t USING (VALUES (13)) s (id) ON t.id = s.id AND false"
                                + " WHEN MATCHED THEN DELETE"),
                "a MERGE that deletes nothing records nothing");
    }

    @Test
    void aStaleInsertUnderRepeatableReadCannotBringBackARowDeletedAfterItsSnapshot() throws SQLException {
        try (FencingScope ignored = Fencing.bind(5);
                Connection stale = pool.getConnection()) {
            stale.setAutoCommit(false);
            stale.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement s = stale.createStatement()) {
                s.executeQuery("SELECT count(*) FROM atk").close(); // the snapshot is taken here
                assertEquals(1, run(20, "DELETE FROM atk WHERE id = 7"));
                assertThrows(SQLException.class, () -> {
                    s.executeUpdate("INSERT INTO atk (id, v) VALUES (7, 555)");
                    stale.commit();
                });
            } finally {
                stale.rollback();
            }
        }
        assertEquals(0, count("id = 7"), "the deleted row stays deleted");
    }

    /**
     * An UPDATE that moves a row off its key takes the old key away as a DELETE would: a holder older than the mover
     * must not insert the old key again, while the mover itself (and anyone newer) may.
     */
    @Test
    void anUpdateThatMovesARowOffItsKeyLeavesATombstoneForTheOldKey() throws SQLException {
        assertEquals(1, run(20, "UPDATE atk SET id = 1003 WHERE id = 3"));
        assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO atk (id, v) VALUES (3, 555)"));
        assertThrows(
                StaleTokenException.class,
                () -> run(5, "INSERT INTO atk (id, v) VALUES (3, 555) ON CONFLICT (id) DO NOTHING"));
        assertEquals(0, count("id = 3"), "the moved-away key stays free for stale holders");
        assertEquals(1, run(20, "INSERT INTO atk (id, v) VALUES (3, 556)"), "the mover may use its old key again");
        assertEquals(1, run(21, "UPDATE atk SET id = 2003 WHERE id = 1003"));
        assertEquals(1, run(22, "UPDATE atk SET id = 1003 WHERE id = 2003"), "moving back is a newer holder's right");
        assertThrows(StaleTokenException.class, () -> run(20, "INSERT INTO atk (id, v) VALUES (2003, 555)"));
    }

    /**
     * READ COMMITTED: a DELETE that waits on a stale holder's UPDATE moving its row to a new key deletes the row
     * under its new key (PostgreSQL re-checks the newest version); the tombstone must be for that key too.
     */
    @Test
    void aDeleteThatWaitedOnAKeyMoveTombstonesTheNewKey() throws Exception {
        db.execute("UPDATE atk SET v = 77 WHERE id = 3");
        try (FencingScope stale = Fencing.bind(5);
                Connection mover = pool.getConnection()) {
            mover.setAutoCommit(false);
            try (Statement s = mover.createStatement()) {
                assertEquals(1, s.executeUpdate("UPDATE atk SET id = 1003 WHERE id = 3"));
                int moverPid = pid(mover);
                java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
                try {
                    java.util.concurrent.Future<Integer> delete =
                            other.submit(() -> run(20, "DELETE FROM atk WHERE v = 77"));
                    // the DELETE is blocked behind the mover's row lock: wait for that, not for a time
                    while (db.queryLong("SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'"
                                    + " AND transactionid = (SELECT backend_xid FROM pg_stat_activity WHERE pid = "
                                    + moverPid
                                    + ")")
                            == 0) {
                        assertTrue(!delete.isDone(), "the DELETE did not wait");
                        Thread.onSpinWait();
                    }
                    mover.commit();
                    assertEquals(1, delete.get(30, java.util.concurrent.TimeUnit.SECONDS));
                } finally {
                    other.shutdownNow();
                }
            }
        }
        assertEquals(0, count("id IN (3, 1003)"));
        assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO atk (id, v) VALUES (1003, 555)"));
        assertEquals(0, count("id = 1003"), "the deleted row stays deleted under its new key");
    }

    /**
     * The trigger records a DELETE only with the token a fenced DELETE handed over for that very statement: an
     * unfenced DELETE later in the same transaction (where the handed-over setting still stands) records nothing,
     * and neither does a raw DELETE in another session.
     */
    @Test
    void onlyTheFencedDeleteThatHandedItsTokenOverRecordsTombstones() throws Exception {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("DELETE FROM atk WHERE id = 11"));
                assertEquals(1, (int) Fencing.unfenced(() -> s.executeUpdate("DELETE FROM atk WHERE id = 12")));
            }
            c.commit();
        }
        db.execute("DELETE FROM atk WHERE id = 13");
        assertEquals(1, db.queryLong("SELECT count(*) FROM fenced_tombstone"), "only the fenced DELETE's key");
        assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO atk (id, v) VALUES (11, 555)"));
        assertEquals(1, run(5, "INSERT INTO atk (id, v) VALUES (12, 555)"), "an unfenced DELETE leaves no tombstone");
        assertEquals(1, run(5, "INSERT INTO atk (id, v) VALUES (13, 555)"), "a raw DELETE leaves no tombstone");
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aTimestamptzKeyIsTheSameKeyInEveryTimeZone() throws SQLException {
        assertEquals(1, run(20, "SET TimeZone = 'UTC'", "DELETE FROM atk_ts WHERE at = '2026-01-01 00:00:00+00'"));
        assertThrows(
                StaleTokenException.class,
                () -> run(
                        5,
                        "SET TimeZone = 'Asia/Tokyo'",
                        "INSERT INTO atk_ts (at, v) VALUES ('2026-01-01 00:00:00+00', 555)"));
        assertEquals(0, db.queryLong("SELECT count(*) FROM atk_ts"));
    }

    /** Every row a DELETE removes must get its tombstone, so what picks the rows must pick the same rows twice. */
    @Test
    void aDeleteWhoseRowsCouldDifferBetweenTwoEvaluationsIsRefused() throws SQLException {
        db.execute(
                "CREATE OR REPLACE FUNCTION coin() RETURNS boolean LANGUAGE sql VOLATILE AS 'SELECT random() < 0.5'");
        for (String sql : new String[] {
            "DELETE FROM atk WHERE random() < 0.5",
            "DELETE FROM atk WHERE coin()",
            "DELETE FROM atk WHERE NOT public.coin()",
            "DELETE FROM atk USING (SELECT id FROM atk WHERE coin()) x WHERE atk.id = x.id",
            "DELETE FROM atk USING (SELECT id FROM atk WHERE random() < 0.5) x WHERE atk.id = x.id",
            "DELETE FROM atk USING (SELECT id FROM atk LIMIT 100) x WHERE atk.id = x.id",
            "DELETE FROM atk a USING (SELECT id FROM atk TABLESAMPLE BERNOULLI (50)) x WHERE a.id = x.id",
            "DELETE FROM atk a USING generate_series(1, (random() * 200)::int) g WHERE a.id = g"
        }) {
            db.clearTombstones();
            db.execute("TRUNCATE atk", "INSERT INTO atk SELECT g, 0, 1 FROM generate_series(1, 200) g");
            int deleted;
            try {
                deleted = run(20, sql);
            } catch (dev.fenced.UnsupportedStatementException refused) {
                continue;
            }
            // not refused: then every deleted key must have its tombstone
            for (int id = 1; id <= 200; id++) {
                if (count("id = " + id) == 0) {
                    int key = id;
                    assertThrows(
                            StaleTokenException.class,
                            () -> run(5, "INSERT INTO atk (id, v) VALUES (" + key + ", 555)"),
                            sql + ": deleted key " + id + " of " + deleted);
                }
            }
        }
    }

    @Test
    void aDeleteAfterDdlInTheSameTransactionStillRecordsItsTombstones() throws SQLException {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE OR REPLACE VIEW atk_view AS SELECT * FROM atk"); // a catalog read inside the
                // transaction
                assertEquals(1, s.executeUpdate("DELETE FROM atk WHERE id = 3"));
            }
            c.commit();
        } finally {
            db.execute("DROP VIEW IF EXISTS atk_view");
        }
        assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO atk (id, v) VALUES (3, 555)"));
        assertEquals(0, count("id = 3"));
    }

    /** A configured tombstone table name reaches SQL only as a name, even one holding fenced's own dollar tag. */
    @Test
    void anOddTombstoneTableNameIsOnlyAName() throws SQLException {
        String name = "\"Tomb $fenced$; CREATE TABLE pwned (); --\"";
        java.util.Properties props = new java.util.Properties();
        props.setProperty("fenced.tombstone.table", name);
        String url = db.fencedUrl("fenced.tables=atk");
        // the default configuration's check is on atk: a writer looking in another tombstone table is refused
        SQLException conflict = assertThrows(
                SQLException.class,
                () -> java.sql.DriverManager.getConnection(url, props).close());
        assertTrue(conflict.getMessage().contains("another fenced.tombstone.table"), conflict.getMessage());
        db.execute("DROP TRIGGER fenced_tombstone_check ON atk");
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = java.sql.DriverManager.getConnection(url, props);
                Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("DELETE FROM atk WHERE id = 11"));
        }
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = java.sql.DriverManager.getConnection(url, props);
                Statement s = c.createStatement()) {
            assertThrows(StaleTokenException.class, () -> s.executeUpdate("INSERT INTO atk (id, v) VALUES (11, 555)"));
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM pg_class WHERE relname = 'pwned'"));
        assertEquals(1, db.queryLong("SELECT count(*) FROM \"Tomb $fenced$; CREATE TABLE pwned (); --\""));
        // put the default check back for the other tests (a new runtime reads the catalog and creates it)
        db.execute("DROP TRIGGER IF EXISTS fenced_tombstone_check ON atk");
        pool.close();
        pool = Pools.fenced(db, 4, "fenced.tables=atk,atk_ts", "fenced.cacheSize=" + (500 + ++runtimes));
    }

    @Test
    void aStaleDeleteLeavesNoTombstoneThatBlocksTheCurrentHolder() throws SQLException {
        assertEquals(1, run(20, "UPDATE atk SET v = 20 WHERE id = 9"));
        assertThrows(StaleTokenException.class, () -> run(5, "DELETE FROM atk WHERE id = 9"));
        assertEquals(1, run(20, "DELETE FROM atk WHERE id = 9"));
        assertEquals(1, run(20, "INSERT INTO atk (id, v) VALUES (9, 20)"));
        assertEquals(1, count("id = 9 AND v = 20"));
    }

    /**
     * The stale holder (no token needed for DDL) switches the tombstone check off through fenced, then inserts the
     * key the newer holder deleted. Before, {@code DISABLE TRIGGER} (ALL, USER or by name), {@code ENABLE REPLICA
     * TRIGGER} and {@code DROP TRIGGER} passed as plain DDL and the stale row came back; now each is refused in
     * enforce mode (FN003), the trigger stays, and the stale insert is refused.
     */
    @Test
    void theTombstoneCheckCannotBeSwitchedOffThroughFenced() throws SQLException {
        String[] switchOffs = {
            "ALTER TABLE atk DISABLE TRIGGER ALL",
            "ALTER TABLE atk DISABLE TRIGGER USER",
            "ALTER TABLE IF EXISTS ONLY public.atk DISABLE TRIGGER fenced_tombstone_check",
            "ALTER TABLE atk ENABLE REPLICA TRIGGER \"fenced_tombstone_check\"",
            "DROP TRIGGER fenced_tombstone_check ON atk",
            "DROP TRIGGER IF EXISTS fenced_tombstone_check ON public.atk CASCADE",
        };
        for (String off : switchOffs) {
            rows();
            assertEquals(1, run(20, "DELETE FROM atk WHERE id = 9"));
            dev.fenced.UnsupportedStatementException refused =
                    assertThrows(dev.fenced.UnsupportedStatementException.class, () -> run(5, off), off);
            assertTrue(refused.getMessage().contains("tombstone check"), refused.getMessage());
            assertThrows(StaleTokenException.class, () -> run(5, "INSERT INTO atk (id, v) VALUES (9, 555)"), off);
            assertEquals(0, count("id = 9"), off);
            assertEquals(
                    1,
                    db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'atk'::regclass"
                            + " AND tgname = 'fenced_tombstone_check' AND tgenabled = 'O'"),
                    off);
        }
        // the table's own triggers stay the user's: disabling one by name is plain DDL
        db.execute(
                "CREATE FUNCTION atk_noop() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
                "CREATE TRIGGER mine BEFORE UPDATE ON atk FOR EACH ROW EXECUTE FUNCTION atk_noop()");
        run(5, "ALTER TABLE atk DISABLE TRIGGER mine");
        run(5, "DROP TRIGGER mine ON atk");
    }
}
