package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which mode decides, and configuration that could silently leave a table unprotected: the strictest mode
 * of every protected name a statement reaches wins, overlapping entries take the strictest, a key given
 * twice is an error, an entry matching no table fails the connect, a fence column must be bigint.
 */
class ModeResolutionIT {

    static TestDatabase db;
    static String mixed;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE obs (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE enf (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE SCHEMA archive",
                "CREATE TABLE archive.t (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE t (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE intfence (id int PRIMARY KEY, last_token integer)",
                "CREATE TABLE smallfence (id int PRIMARY KEY, last_token smallint)");
        mixed = db.fencedUrl("fenced.tables=obs,enf", "fenced.table.obs.mode=observe");
    }

    @BeforeEach
    void rows() {
        db.execute(
                "TRUNCATE obs, enf, t, archive.t",
                "INSERT INTO obs VALUES (1, 10, 20)",
                "INSERT INTO enf VALUES (1, 10, 20)",
                "INSERT INTO t VALUES (1, 10, 20)",
                "INSERT INTO archive.t VALUES (1, 10, 20)");
    }

    private static void run(String url, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void aStatementReachingAnEnforcedTableIsRefusedWhateverNameComesFirst() {
        assertThrows(UnsupportedStatementException.class, () -> run(mixed, "TRUNCATE obs, enf"));
        // (MERGE in WITH and UPDATE ... WHERE CURRENT OF are fenced now; DELETE ... WHERE CURRENT OF is refused)
        assertThrows(
                UnsupportedStatementException.class,
                () -> run(mixed, "WITH q AS (SELECT * FROM obs) DELETE FROM enf WHERE CURRENT OF c"));
        assertThrows(
                UnsupportedStatementException.class,
                () -> run(mixed, "WITH obs AS (SELECT 1) DELETE FROM enf WHERE CURRENT OF c"));
        assertEquals(1, db.queryLong("SELECT count(*) FROM enf"));
        assertEquals(10, db.queryLong("SELECT amount FROM enf"));
    }

    @Test
    void overlappingEntriesTakeTheStrictestMode() throws Exception {
        String url = db.fencedUrl("fenced.tables=archive.t,t", "fenced.table.archive.t.mode=observe");
        assertThrows(UnfencedWriteException.class, () -> run(url, "UPDATE t SET amount = 0"));
        assertThrows(UnfencedWriteException.class, () -> run(url, "UPDATE public.t SET amount = 0"));
        try (FencingScope ignored = Fencing.bind(5)) {
            assertThrows(StaleTokenException.class, () -> run(url, "UPDATE t SET amount = 0"));
        }
        assertEquals(10, db.queryLong("SELECT amount FROM t"));
    }

    @Test
    void aKeyGivenTwiceInTheUrlIsAnError() {
        FencingException e = assertThrows(
                FencingException.class,
                () -> DriverManager.getConnection(db.fencedUrl("fenced.tables=enf", "fenced.tables=obs"))
                        .close());
        assertEquals(FencingException.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("fenced.tables given twice"), e.getMessage());
    }

    @Test
    void anEntryThatMatchesNoTableFailsTheConnectUnlessToldToWarn() throws SQLException {
        FencingException e = assertThrows(
                FencingException.class,
                () -> DriverManager.getConnection(db.fencedUrl("fenced.tables=enf,totls"))
                        .close());
        assertEquals(FencingException.SCHEMA, e.getSQLState());
        assertTrue(e.getMessage().contains("protected table totls matches no table"), e.getMessage());
        assertTrue(e.getMessage().contains("fenced.missingTables=warn"), e.getMessage());
        DriverManager.getConnection(db.fencedUrl("fenced.tables=enf,later", "fenced.missingTables=warn"))
                .close();
        DriverManager.getConnection(db.fencedUrl("fenced.tables=enf,gone", "fenced.table.gone.mode=observe"))
                .close();
    }

    @Test
    void aFenceColumnThatIsNotBigintIsRefused() {
        for (String table : new String[] {"intfence", "smallfence"}) {
            FencingException e = assertThrows(
                    FencingException.class,
                    () -> DriverManager.getConnection(db.fencedUrl("fenced.tables=" + table))
                            .close());
            assertTrue(e.getMessage().contains("a fence column must be bigint"), e.getMessage());
        }
    }
}
