package dev.fenced.it.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.TokenDomainException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One token domain per table (issue 15, item 3): a token of another source never reaches a row, whatever binds it,
 * and the database records each table's domain so two applications configured differently cannot both write it.
 */
class TokenDomainIT {

    static TestDatabase db;
    static ExecutorService pool;
    /** What an operator runs to move tables to another source: forgets every recorded domain. */
    static final String FORGET_DOMAINS = "DO $$ BEGIN IF to_regclass('fenced_token_domain') IS NOT NULL THEN"
            + " DELETE FROM fenced_token_domain; END IF; END $$";

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE orders (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "CREATE TABLE events (id int, at date, last_token bigint) PARTITION BY RANGE (at)",
                "CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')");
        pool = Executors.newSingleThreadExecutor();
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    @BeforeEach
    void rows() {
        db.execute(
                "TRUNCATE totals, orders",
                "INSERT INTO totals VALUES (1, 10, NULL)",
                "INSERT INTO orders VALUES (1, 10, NULL)",
                FORGET_DOMAINS);
    }

    /**
     * A connection as another application's first connect makes it: each through a DataSource of its own, whose
     * runtime reads and checks the catalog (the driver would reuse what an earlier test's connect learned).
     */
    private static Connection connect(String url) throws SQLException {
        return new FencedDataSource(url).getConnection();
    }

    private static int update(String url, String sql) throws SQLException {
        try (Connection c = connect(url);
                Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    private static String etcdTotals() {
        return db.fencedUrl("fenced.tables=totals", "fenced.table.totals.tokenDomain=etcd");
    }

    @Test
    void aTokenOfTheTablesDomainWritesAndOneOfAnotherIsRefusedBeforeItIsSent() throws SQLException {
        String url = etcdTotals();
        try (FencingScope scope = Fencing.bind("etcd", 7)) {
            assertEquals("etcd", scope.tokenDomain());
            assertEquals(1, update(url, "UPDATE totals SET amount = 11 WHERE id = 1"));
        }
        assertEquals(7, db.queryLong("SELECT last_token FROM totals"));
        // a much bigger number of another source: it would pass the row's check, so it must never get there
        try (FencingScope ignored = Fencing.bind("zookeeper", 1_000_000)) {
            TokenDomainException e = assertThrows(
                    TokenDomainException.class, () -> update(url, "UPDATE totals SET amount = 666 WHERE id = 1"));
            assertEquals(TokenDomainException.SQLSTATE, e.getSQLState());
            assertEquals("totals", e.table());
            assertEquals("etcd", e.tableDomain());
            assertEquals("zookeeper", e.tokenDomain());
            assertTrue(
                    e.getMessage().contains("totals")
                            && e.getMessage().contains("'etcd'")
                            && e.getMessage().contains("'zookeeper'"),
                    e.getMessage());
        }
        assertEquals(11, db.queryLong("SELECT amount FROM totals"));
        assertEquals(7, db.queryLong("SELECT last_token FROM totals"));
    }

    @Test
    void aTokenBoundWithNoDomainIsFencedsOwnAndReachesOnlyTablesOfThatDomain() throws SQLException {
        try (FencingScope scope = Fencing.bind(1_000_000)) {
            assertEquals(Fencing.FENCED_DOMAIN, scope.tokenDomain());
            assertEquals("fenced", Fencing.currentTokenDomain().orElseThrow());
            TokenDomainException e = assertThrows(
                    TokenDomainException.class,
                    () -> update(etcdTotals(), "UPDATE totals SET amount = 666 WHERE id = 1"));
            assertEquals("fenced", e.tokenDomain());
            // a table left at the default domain takes it, as before token domains existed
            assertEquals(1, update(db.fencedUrl("fenced.tables=orders"), "UPDATE orders SET amount = 12 WHERE id = 1"));
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals"));
        assertEquals(1_000_000, db.queryLong("SELECT last_token FROM orders"));
    }

    @Test
    void aLeaseTokenIsOfFencedsDomain() throws Exception {
        try (LeaseManager leases = LeaseManager.create(dataSource());
                Lease lease = leases.acquire("domain-test", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            assertEquals("fenced", Fencing.currentTokenDomain().orElseThrow());
            assertThrows(
                    TokenDomainException.class,
                    () -> update(etcdTotals(), "UPDATE totals SET amount = 1 WHERE id = 1"));
            assertEquals(1, update(db.fencedUrl("fenced.tables=orders"), "UPDATE orders SET amount = 13 WHERE id = 1"));
            assertEquals(lease.token(), db.queryLong("SELECT last_token FROM orders"));
        }
    }

    @Test
    void oneStatementThatReachesTablesOfTwoDomainsIsRefused() throws SQLException {
        String url = db.fencedUrl("fenced.tables=totals,orders", "fenced.table.totals.tokenDomain=etcd");
        for (String domain : new String[] {"etcd", "fenced"}) {
            try (FencingScope ignored = Fencing.bind(domain, 5)) {
                UnsupportedStatementException e = assertThrows(
                        UnsupportedStatementException.class,
                        () -> update(
                                url,
                                "WITH o AS (UPDATE orders SET amount = 1 WHERE id = 1 RETURNING id)"
                                        + " UPDATE totals SET amount = 1 WHERE id IN (SELECT id FROM o)"));
                assertTrue(
                        e.getMessage().contains("token domain etcd")
                                && e.getMessage().contains("token domain fenced"),
                        e.getMessage());
                assertThrows(
                        UnsupportedStatementException.class,
                        () -> update(
                                url,
                                "UPDATE orders SET amount = 2 WHERE id = 1; UPDATE totals SET amount = 2 WHERE id = 1"));
            }
        }
        assertEquals(10, db.queryLong("SELECT amount FROM totals"));
        assertEquals(10, db.queryLong("SELECT amount FROM orders"));
        try (FencingScope ignored = Fencing.bind("etcd", 5)) { // each on its own, under its own token, is fine
            assertEquals(1, update(url, "UPDATE totals SET amount = 3 WHERE id = 1"));
        }
    }

    @Test
    void theDatabaseRecordsTheDomainSoASecondConfigurationCannotConnect() throws SQLException {
        connect(etcdTotals()).close(); // the first connect records totals as etcd
        assertEquals(
                1,
                db.queryLong("SELECT count(*) FROM fenced_token_domain WHERE relation_schema = 'public'"
                        + " AND relation_name = 'totals' AND token_domain = 'etcd'"));
        FencingException e = assertThrows(
                FencingException.class,
                () -> connect(db.fencedUrl("fenced.tables=totals")).close());
        assertEquals(FencingException.TOKEN_DOMAIN_RECORDED, e.getSQLState());
        assertTrue(
                e.getMessage().contains("public.totals")
                        && e.getMessage().contains("'etcd'")
                        && e.getMessage().contains("'fenced'"),
                e.getMessage());
        // the same holds for a default set for every table, and for the first configuration again
        FencingException other = assertThrows(
                FencingException.class,
                () -> connect(db.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=zookeeper"))
                        .close());
        assertTrue(other.getMessage().contains("'zookeeper'"), other.getMessage());
        connect(etcdTotals()).close();
        connect(db.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=etcd")).close();
    }

    @Test
    void twoConfigurationsConnectingAtOnceCannotBothWin() throws Exception {
        for (int round = 0; round < 5; round++) {
            db.execute(FORGET_DOMAINS);
            CompletableFuture<Boolean> etcd = CompletableFuture.supplyAsync(() -> connects(etcdTotals()), pool);
            boolean fenced = connects(db.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=redisson"));
            assertTrue(
                    etcd.get() ^ fenced,
                    "exactly one of two configurations that disagree connects (round " + round + ")");
        }
    }

    private static boolean connects(String url) {
        try (Connection ignored = connect(url)) {
            return true;
        } catch (SQLException e) {
            if (!FencingException.TOKEN_DOMAIN_RECORDED.equals(e.getSQLState())) {
                throw new AssertionError(e);
            }
            return false;
        }
    }

    @Test
    void aPartitionTakesItsTablesDomainAndIsRecordedWithIt() throws SQLException {
        String url = db.fencedUrl("fenced.tables=events", "fenced.table.events.tokenDomain=etcd");
        connect(url).close();
        assertEquals(
                1,
                db.queryLong("SELECT count(*) FROM fenced_token_domain WHERE relation_name = 'events_2026'"
                        + " AND token_domain = 'etcd'"));
        try (FencingScope ignored = Fencing.bind(9)) {
            assertThrows(
                    TokenDomainException.class,
                    () -> update(url, "INSERT INTO events_2026 (id, at) VALUES (1, '2026-05-01')"));
        }
        // protecting the partition alone under another domain: its rows are the etcd table's
        FencingException e = assertThrows(
                FencingException.class,
                () -> connect(db.fencedUrl("fenced.tables=events_2026")).close());
        assertTrue(e.getMessage().contains("events_2026"), e.getMessage());
    }

    @Test
    void entriesThatCanNameOneTableMustAgreeOnItsDomain() {
        FencingException e = assertThrows(
                FencingException.class,
                () -> connect(db.fencedUrl(
                                "fenced.tables=totals,public.totals", "fenced.table.totals.tokenDomain=etcd"))
                        .close());
        assertEquals(FencingException.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("can name the same table"), e.getMessage());
    }

    @Test
    void badDomainNamesAreRefusedClearly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Fencing.bind("Etcd", 1));
        assertTrue(e.getMessage().contains("lower-case"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Fencing.bind("", 1));
        assertThrows(IllegalArgumentException.class, () -> Fencing.bind(null, 1));
        FencingException config = assertThrows(
                FencingException.class,
                () -> connect(db.fencedUrl("fenced.tables=totals", "fenced.tokenDomain=ETCD"))
                        .close());
        assertTrue(config.getMessage().contains("fenced.tokenDomain"), config.getMessage());
    }

    @Test
    void observeModeSendsNoTokenForAnotherDomainAndCountsIt() throws SQLException {
        db.execute("UPDATE totals SET last_token = 4");
        String url =
                db.fencedUrl("fenced.tables=totals", "fenced.mode=observe", "fenced.table.totals.tokenDomain=etcd");
        long before = FencedStats.counters().get("fenced.writes.unfenced.observed");
        try (FencingScope ignored = Fencing.bind(1_000_000)) {
            assertEquals(1, update(url, "UPDATE totals SET amount = 12 WHERE id = 1"));
        }
        assertEquals(before + 1, FencedStats.counters().get("fenced.writes.unfenced.observed"));
        assertEquals(
                4, db.queryLong("SELECT last_token FROM totals"), "the other domain's number never reaches the row");
    }

    @Test
    void theDomainTravelsWithTheTokenToAnotherThread() throws Exception {
        // what the agent and context propagation hand over is the cell itself; a stale etcd number stays etcd's there
        db.execute("UPDATE totals SET last_token = 50");
        String url = etcdTotals();
        try (FencingScope ignored = Fencing.bind("etcd", 40)) {
            CompletableFuture<Void> run = CompletableFuture.runAsync(
                    FencedTestExtension.carry(() -> {
                        assertEquals("etcd", Fencing.currentTokenDomain().orElseThrow());
                        assertThrows(
                                StaleTokenException.class,
                                () -> update(url, "UPDATE totals SET amount = 1 WHERE id = 1"));
                    }),
                    pool);
            run.get();
        }
    }

    private static javax.sql.DataSource dataSource() {
        org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setUrl(db.rawUrl());
        return ds;
    }
}
