package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Fencing.unfenced} is the escape hatch for migrations and admin tools: inside it, statements fenced
 * would refuse (DO blocks, TRUNCATE, MERGE) run as written; outside it they are refused as always, and a
 * prepared statement made inside one cannot carry the exemption out of it.
 */
class UnfencedSectionIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)");
        pool = Pools.fenced(db, 2, "fenced.tables=totals");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.execute("TRUNCATE totals", "INSERT INTO totals VALUES (1, 10, 5), (2, 20, 9)");
    }

    static final String DO_BLOCK = "DO $$ BEGIN UPDATE totals SET amount = 0 WHERE restaurant_id = 1; END $$";
    /**
     * Refused outside an unfenced section: a MERGE that sets the fence column itself. (A MERGE that can delete
     * from a table with tombstones was the example once; fenced now fences it, so it no longer serves.)
     */
    static final String MERGE = "MERGE INTO totals t USING (VALUES (2, 22)) v(id, amount) ON t.restaurant_id = v.id"
            + " WHEN MATCHED THEN UPDATE SET amount = v.amount, last_token = t.last_token";

    @Test
    void refusedStatementsRunAsWrittenInsideAnUnfencedSection() throws Exception {
        Fencing.unfenced(() -> {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DO_BLOCK);
                s.executeUpdate(MERGE);
                try (PreparedStatement ps = c.prepareStatement(MERGE)) {
                    assertEquals(1, ps.executeUpdate());
                }
            }
            return null;
        });
        assertEquals(0, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 1"));
        assertEquals(22, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 2"));
        assertEquals(9, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 2"));
        Fencing.unfenced(() -> {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                return s.executeUpdate("TRUNCATE totals");
            }
        });
        assertEquals(0, db.queryLong("SELECT count(*) FROM totals"));
    }

    @Test
    void outsideItTheyAreRefusedEvenWithATokenBound() throws Exception {
        try (FencingScope ignored = Fencing.bind(100);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            assertThrows(UnsupportedStatementException.class, () -> s.execute(DO_BLOCK));
            assertThrows(UnsupportedStatementException.class, () -> s.executeUpdate("TRUNCATE totals"));
            assertThrows(UnsupportedStatementException.class, () -> c.prepareStatement(MERGE));
        }
        assertEquals(2, db.queryLong("SELECT count(*) FROM totals"));
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 1"));
    }

    @Test
    void aStatementPreparedInsideAnUnfencedSectionIsRefusedWhenExecutedOutsideIt() throws Exception {
        try (Connection c = pool.getConnection()) {
            PreparedStatement merge = Fencing.unfenced(() -> c.prepareStatement(MERGE));
            try (merge;
                    FencingScope ignored = Fencing.bind(100)) {
                assertThrows(UnsupportedStatementException.class, merge::executeUpdate);
                assertThrows(UnsupportedStatementException.class, merge::execute);
                assertThrows(UnsupportedStatementException.class, merge::addBatch);
            }
        }
        assertEquals(20, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 2"));
    }

    static final String UPDATE = "UPDATE totals SET amount = ? WHERE restaurant_id = ?";
    static final String UPSERT = "INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)"
            + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = excluded.amount";

    /**
     * A protected UPDATE's usual text needs a token (its guard sets the fence column to the token); inside an
     * unfenced section the driver sends the text that keeps the row's fence value instead, for a plain statement,
     * a batch, an upsert and a statement prepared inside the section; that prepared statement, run later with a
     * token, is fenced as usual.
     */
    @Test
    void protectedUpdatesInsideAnUnfencedSectionKeepTheRowsFenceValue() throws Exception {
        try (Connection c = pool.getConnection()) {
            PreparedStatement prepared = Fencing.unfenced(() -> {
                try (Statement s = c.createStatement()) {
                    assertEquals(1, s.executeUpdate("UPDATE totals SET amount = 11 WHERE restaurant_id = 1"));
                    s.addBatch("UPDATE totals SET amount = 12 WHERE restaurant_id = 1");
                    s.addBatch("UPDATE totals SET amount = 21 WHERE restaurant_id = 2");
                    s.executeBatch();
                }
                try (PreparedStatement upsert = c.prepareStatement(UPSERT)) {
                    upsert.setInt(1, 2);
                    upsert.setLong(2, 22);
                    assertEquals(1, upsert.executeUpdate());
                }
                PreparedStatement ps = c.prepareStatement(UPDATE);
                ps.setLong(1, 13);
                ps.setInt(2, 1);
                assertEquals(1, ps.executeUpdate());
                return ps;
            });
            assertEquals(13, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 1"));
            assertEquals(22, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 2"));
            assertEquals(5, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
            assertEquals(9, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 2"));
            try (prepared) {
                try (FencingScope ignored = Fencing.bind(7)) {
                    prepared.setLong(1, 14);
                    prepared.setInt(2, 1);
                    assertEquals(1, prepared.executeUpdate());
                }
                assertEquals(7, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
                try (FencingScope ignored = Fencing.bind(6)) {
                    prepared.setLong(1, 15);
                    assertThrows(dev.fenced.StaleTokenException.class, prepared::executeUpdate);
                }
            }
        }
        assertEquals(14, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 1"));
        assertEquals(7, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
    }

    /** Prepared with the text that needs a token, a protected UPDATE run unfenced is refused, not sent with NULL. */
    @Test
    void anUpdatePreparedOutsideAnUnfencedSectionIsRefusedInsideIt() throws Exception {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(UPDATE)) {
            ps.setLong(1, 99);
            ps.setInt(2, 1);
            UnsupportedStatementException e =
                    assertThrows(UnsupportedStatementException.class, () -> Fencing.unfenced(ps::executeUpdate));
            assertEquals("totals", e.table());
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> Fencing.unfenced(() -> {
                        ps.addBatch();
                        return null;
                    }));
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 1"));
        assertEquals(5, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 1"));
    }
}
