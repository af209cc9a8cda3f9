package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
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
 * Issue 24, item 6: a protected table dropped and created again behind fenced's back (test suites and migration
 * tools do this) has lost its tombstone check. The next fenced DELETE is refused with a fenced SQLState and a message
 * that says to retry, never PostgreSQL's raw "invalid input syntax for type boolean"; the retry runs, with the check
 * restored.
 */
@Tag("server-sensitive")
class TableRecreatedIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE rc (id int PRIMARY KEY, v int, last_token bigint)");
        pool = Pools.fenced(db, 2, "fenced.tables=rc");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void recreated() throws SQLException {
        db.clearTombstones();
        try (FencingScope ignored = Fencing.bind(10);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO rc (id, v) VALUES (1, 0) ON CONFLICT (id) DO NOTHING");
        }
        db.execute(
                "DROP TABLE rc",
                "CREATE TABLE rc (id int PRIMARY KEY, v int, last_token bigint)",
                "INSERT INTO rc VALUES (1, 0, 10), (2, 0, 10)");
    }

    static long triggers() {
        return db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'rc'::regclass"
                + " AND tgname = 'fenced_tombstone_check'");
    }

    @Test
    void inAutocommitTheDeleteIsRefusedWithARetryMessageAndTheRetryRuns() throws SQLException {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            FencingException e =
                    assertThrows(FencingException.class, () -> s.executeUpdate("DELETE FROM rc WHERE id = 1"));
            assertEquals(FencingException.SCHEMA, e.getSQLState());
            assertTrue(e.getMessage().contains("retry"), e::getMessage);
            assertEquals(2, db.queryLong("SELECT count(*) FROM rc"), "nothing was deleted");
            assertEquals(1, s.executeUpdate("DELETE FROM rc WHERE id = 1"));
        }
        assertEquals(1, triggers(), "the check is back");
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO rc (id, v) VALUES (1, 9)"));
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM rc WHERE id = 1"), "the deleted row stays deleted");
    }

    @Test
    void inATransactionTheDeleteFailsWithARetryMessageAndANewTransactionRuns() throws SQLException {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                s.executeUpdate("UPDATE rc SET v = 1 WHERE id = 2");
                FencingException e =
                        assertThrows(FencingException.class, () -> s.executeUpdate("DELETE FROM rc WHERE id = 1"));
                assertEquals(FencingException.SCHEMA, e.getSQLState());
                assertTrue(e.getMessage().contains("retry"), e::getMessage);
                c.rollback();
                s.executeUpdate("UPDATE rc SET v = 1 WHERE id = 2");
                assertEquals(1, s.executeUpdate("DELETE FROM rc WHERE id = 1"));
                c.commit();
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        assertEquals(1, triggers(), "the check is back");
        assertEquals(0, db.queryLong("SELECT count(*) FROM rc WHERE id = 1"));
    }
}
