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
class UnfencedSectionTest {

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
    /** Refused outside an unfenced section: a MERGE that can delete from a table with tombstones. */
    static final String MERGE = "MERGE INTO totals t USING (VALUES (2, 22)) v(id, amount) ON t.restaurant_id = v.id"
            + " WHEN MATCHED AND v.amount = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET amount = v.amount";

    @Test
    void refusedStatementsRunAsWrittenInsideAnUnfencedSection() throws Exception {
        Fencing.unfenced(() -> {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
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
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                return s.executeUpdate("TRUNCATE totals");
            }
        });
        assertEquals(0, db.queryLong("SELECT count(*) FROM totals"));
    }

    @Test
    void outsideItTheyAreRefusedEvenWithATokenBound() throws Exception {
        try (FencingScope ignored = Fencing.bind(100); Connection c = pool.getConnection();
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
            try (merge; FencingScope ignored = Fencing.bind(100)) {
                assertThrows(UnsupportedStatementException.class, merge::executeUpdate);
                assertThrows(UnsupportedStatementException.class, merge::execute);
                assertThrows(UnsupportedStatementException.class, merge::addBatch);
            }
        }
        assertEquals(20, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 2"));
    }
}
