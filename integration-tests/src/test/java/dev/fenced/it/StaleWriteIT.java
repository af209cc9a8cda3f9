package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The seed's scenario on one row: the token lands, an older token is refused, nothing changes. */
class StaleWriteIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.fencedUrl("fenced.tables=totals"));
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.execute("TRUNCATE totals", "INSERT INTO totals VALUES (77, 0, NULL), (78, 0, NULL)");
    }

    static int update(long amount, int restaurant) throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = ?")) {
            ps.setLong(1, amount);
            ps.setInt(2, restaurant);
            return ps.executeUpdate();
        }
    }

    @Test
    void theTokenLandsInTheRow() throws SQLException {
        try (FencingScope ignored = Fencing.bind(33)) {
            assertEquals(1, update(42000, 77));
        }
        assertEquals(42000, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"));
        assertEquals(33, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 77"));
    }

    @Test
    void anOlderTokenIsRefusedAndNothingChanges() throws SQLException {
        try (FencingScope ignored = Fencing.bind(34)) {
            update(100, 77);
        }
        try (FencingScope ignored = Fencing.bind(33)) {
            StaleTokenException e = assertThrows(StaleTokenException.class, () -> update(999, 77));
            assertEquals("totals", e.table());
            assertEquals(33, e.token());
            assertEquals(34, e.rowToken());
            assertEquals(StaleTokenException.SQLSTATE, e.getSQLState());
        }
        assertEquals(100, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"));
        assertEquals(34, db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 77"));
    }

    @Test
    void anEqualTokenMayWriteAgain() throws SQLException {
        try (FencingScope ignored = Fencing.bind(40)) {
            assertEquals(1, update(1, 77));
            assertEquals(1, update(2, 77));
        }
        assertEquals(2, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"));
    }

    @Test
    void aWhereThatMatchesNothingReturnsZero() throws SQLException {
        try (FencingScope ignored = Fencing.bind(40)) {
            assertEquals(0, update(1, 12345));
        }
    }

    @Test
    void withoutATokenTheWriteIsRefusedBeforeItIsSent() {
        UnfencedWriteException e = assertThrows(UnfencedWriteException.class, () -> update(5, 77));
        assertTrue(e.getMessage().contains("totals"), e.getMessage());
        assertEquals(0, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"));
    }
}
