package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.TokenDomainException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A protected table whose token domain is one lock service's, on a fresh database: the row two holders of that
 * service's lock fight over, and the checks every token source must pass.
 */
final class FencedTable {

    private final TestDatabase db;
    private final String domain;
    private final String url;

    private FencedTable(TestDatabase db, String domain, String url) {
        this.db = db;
        this.domain = domain;
        this.url = url;
    }

    /** Table {@code totals}, one row, fence column empty, token domain {@code domain}. */
    static FencedTable create(String domain) {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 0, NULL)");
        return new FencedTable(
                db, domain, db.fencedUrl("fenced.tables=totals", "fenced.table.totals.tokenDomain=" + domain));
    }

    /** The row's amount := {@code amount}, through the fenced driver, under whatever token the thread has bound. */
    void write(long amount) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = 1")) {
            ps.setLong(1, amount);
            assertEquals(1, ps.executeUpdate());
        }
    }

    /** The row's amount := {@code amount} under {@code token} of this table's domain: the recipe. */
    void writeUnder(long token, long amount) throws SQLException {
        try (FencingScope ignored = Fencing.bind(domain, token)) {
            write(amount);
        }
    }

    long amount() {
        return db.queryLong("SELECT amount FROM totals WHERE id = 1");
    }

    long lastToken() {
        return db.queryLong("SELECT last_token FROM totals WHERE id = 1");
    }

    /**
     * After the second holder wrote {@code amount} under {@code second}: the first holder's late write under
     * {@code first} was refused as stale ({@code lateWrite}, what it threw), the row is the second's, and a token of
     * another domain, however big, is refused by the domain check before it reaches the row.
     */
    void assertOnlyTheSecondHolderWrote(long first, long second, long amount, Throwable lateWrite) throws SQLException {
        assertTrue(second > first, "the lock service's token grew: " + first + " then " + second);
        assertTrue(
                lateWrite instanceof StaleTokenException,
                "the paused holder's late write is refused as stale, got " + lateWrite);
        assertEquals(amount, amount(), "the row is the second holder's");
        assertEquals(second, lastToken());
        for (String other : new String[] {Fencing.FENCED_DOMAIN, domain.equals("etcd") ? "zookeeper" : "etcd"}) {
            try (FencingScope ignored = Fencing.bind(other, second + 1_000_000_000L)) {
                TokenDomainException e = assertThrows(TokenDomainException.class, () -> write(-1));
                assertEquals(domain, e.tableDomain());
                assertEquals(other, e.tokenDomain());
            }
        }
        assertEquals(amount, amount(), "no token of another domain reached the row");
        assertEquals(second, lastToken());
    }
}
