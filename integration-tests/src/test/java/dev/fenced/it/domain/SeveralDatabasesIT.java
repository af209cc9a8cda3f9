package dev.fenced.it.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.TokenDomainException;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.spi.PostgresLeaseStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One lease over several databases (issue 28, item 4). Each database's lease table draws tokens of domain
 * {@code fenced} from its own sequence, so a token drawn in one database says nothing about the rows of another:
 * the driver refuses it there. A lease whose store has a token domain of its own fences every database that names
 * that domain, and a stale holder is refused in each.
 */
@ExtendWith(FencedTestExtension.class)
class SeveralDatabasesIT {

    static TestDatabase orders;
    static TestDatabase billing;

    @BeforeAll
    static void databases() {
        orders = TestDatabase.create();
        billing = TestDatabase.create();
        for (TestDatabase db : new TestDatabase[] {orders, billing}) {
            db.execute("CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)");
        }
    }

    @BeforeEach
    void rows() {
        for (TestDatabase db : new TestDatabase[] {orders, billing}) {
            db.execute(
                    "TRUNCATE totals",
                    "INSERT INTO totals VALUES (1, 10, NULL)",
                    "DO $$ BEGIN IF to_regclass('fenced_token_domain') IS NOT NULL THEN"
                            + " DELETE FROM fenced_token_domain; END IF; END $$");
        }
    }

    private static DataSource raw(TestDatabase db) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.rawUrl());
        return ds;
    }

    /** A write through a DataSource of its own, whose runtime reads the database at its first connect. */
    private static int update(String url, String sql) throws SQLException {
        try (Connection c = new FencedDataSource(url).getConnection();
                Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    @Test
    void aLeaseOfOneDatabasesLeaseTableDoesNotFenceAnotherDatabase() throws Exception {
        String ordersUrl = orders.fencedUrl("fenced.tables=totals");
        String billingUrl = billing.fencedUrl("fenced.tables=totals");
        try (LeaseManager leases = LeaseManager.create(raw(orders));
                Lease lease = leases.acquire("nightly", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            // its own database: fenced as ever
            assertEquals(1, update(ordersUrl, "UPDATE totals SET amount = 11 WHERE id = 1"));
            assertEquals(lease.token(), orders.queryLong("SELECT last_token FROM totals"));
            // another database: its rows are fenced by that database's own counter, which this number is not
            TokenDomainException e = assertThrows(
                    TokenDomainException.class,
                    () -> update(billingUrl, "UPDATE totals SET amount = 666 WHERE id = 1"));
            assertEquals(TokenDomainException.SQLSTATE, e.getSQLState());
            assertEquals("totals", e.table());
            assertEquals("fenced", e.tableDomain());
            assertTrue(
                    e.getMessage().contains("another database")
                            && e.getMessage().contains("tokenDomain"),
                    e.getMessage());
        }
        assertEquals(10, billing.queryLong("SELECT amount FROM totals"));
        assertEquals(0, billing.queryLong("SELECT count(*) FROM totals WHERE last_token IS NOT NULL"));
    }

    @Test
    void aLeaseTakenInTheDatabaseItWritesStillFencesIt() throws Exception {
        // the other side of the rule: billing's own lease table fences billing (and its origin matches after a
        // reconnect)
        String billingUrl = billing.fencedUrl("fenced.tables=totals");
        try (LeaseManager leases = LeaseManager.create(raw(billing));
                Lease lease = leases.acquire("billing-run", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            assertEquals(1, update(billingUrl, "UPDATE totals SET amount = 12 WHERE id = 1"));
            assertEquals(1, update(billingUrl, "UPDATE totals SET amount = 13 WHERE id = 1"));
            assertEquals(lease.token(), billing.queryLong("SELECT last_token FROM totals"));
        }
    }

    @Test
    void oneLeaseOfANamedDomainFencesBothDatabasesAndItsStaleHolderIsRefusedInEach() throws Exception {
        String ordersUrl = orders.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=jobs");
        String billingUrl = billing.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=jobs");
        long first;
        // the store lives in orders; its tokens are of domain jobs, which both databases' tables name
        try (LeaseManager leases =
                LeaseManager.builder(raw(orders)).tokenDomain("jobs").build()) {
            try (Lease lease = leases.acquire("nightly", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                first = lease.token();
                assertEquals("jobs", Fencing.currentTokenDomain().orElseThrow());
                assertEquals(1, update(ordersUrl, "UPDATE totals SET amount = 20 WHERE id = 1"));
                assertEquals(1, update(billingUrl, "UPDATE totals SET amount = 20 WHERE id = 1"));
            }
            // the next holder of the lease (the first one paused past its ttl, in another process)
            try (Lease lease = leases.acquire("nightly", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                assertTrue(lease.token() > first, lease.token() + " > " + first);
                assertEquals(1, update(ordersUrl, "UPDATE totals SET amount = 30 WHERE id = 1"));
                assertEquals(1, update(billingUrl, "UPDATE totals SET amount = 30 WHERE id = 1"));
                for (TestDatabase db : new TestDatabase[] {orders, billing}) {
                    assertEquals(lease.token(), db.queryLong("SELECT last_token FROM totals"));
                }
            }
        }
        // the first holder wakes up and writes with its old token: refused by each database, nothing changes
        try (FencingScope stale = Fencing.bind("jobs", first)) {
            for (String url : new String[] {ordersUrl, billingUrl}) {
                StaleTokenException e = assertThrows(
                        StaleTokenException.class, () -> update(url, "UPDATE totals SET amount = 666 WHERE id = 1"));
                assertEquals(first, e.token());
            }
        }
        // and a token of fenced's own domain (some database's own lease table) never reaches these tables
        try (FencingScope other = Fencing.bind(1_000_000)) {
            for (String url : new String[] {ordersUrl, billingUrl}) {
                assertThrows(
                        TokenDomainException.class, () -> update(url, "UPDATE totals SET amount = 666 WHERE id = 1"));
            }
        }
        for (TestDatabase db : new TestDatabase[] {orders, billing}) {
            assertEquals(30, db.queryLong("SELECT amount FROM totals"));
        }
    }

    @Test
    void theSpiStoreTakesANamedDomainToo() throws Exception {
        PostgresLeaseStore store = PostgresLeaseStore.create(raw(orders), "fenced_lease", true, "jobs");
        assertEquals("jobs", store.tokenDomain());
        assertThrows(IllegalArgumentException.class, () -> PostgresLeaseStore.create(raw(orders), "t", true, "Jobs"));
        assertThrows(
                IllegalArgumentException.class,
                () -> LeaseManager.builder(raw(orders)).tokenDomain(""));
        String billingUrl = billing.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=jobs");
        try (LeaseManager leases = LeaseManager.builder(store).build();
                Lease lease = leases.acquire("spi-run", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            assertEquals(1, update(billingUrl, "UPDATE totals SET amount = 40 WHERE id = 1"));
            assertEquals(lease.token(), billing.queryLong("SELECT last_token FROM totals"));
        }
    }
}
