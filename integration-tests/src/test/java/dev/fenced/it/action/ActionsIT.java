package dev.fenced.it.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Actions;
import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code Actions.once} on real PostgreSQL: holders racing for one lease, a holder frozen past its lease (a thread
 * blocked on a latch while the lease expires and a newer holder takes over), a holder whose lease the database
 * expired while it still believes in it: every action runs exactly once, and never for a stale token.
 */
@ExtendWith(FencedTestExtension.class)
class ActionsIT {

    private static final String LEASE = "sms-sender";

    private static TestDatabase db;
    private static DataSource data;
    private static HikariDataSource fencedPool;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE orders (id int PRIMARY KEY, state text, last_token bigint)");
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(db.rawUrl());
        data = ds;
        fencedPool = Pools.fenced(db, 4, "fenced.tables=orders");
    }

    @AfterAll
    static void tearDown() {
        fencedPool.close();
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void twoHoldersRacingForTheLeaseRunEachActionOnce() throws Exception {
        ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (LeaseManager a = LeaseManager.builder(data).holder("a").build();
                LeaseManager b = LeaseManager.builder(fencedPool).holder("b").build()) {
            for (int order = 1; order <= 10; order++) {
                String key = "sms:order-" + order;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> sent = new ArrayList<>();
                for (LeaseManager holder : List.of(a, b)) {
                    DataSource ds = holder == a ? data : fencedPool;
                    sent.add(pool.submit(() -> {
                        start.await();
                        try (Lease ignored = holder.acquire(LEASE, Duration.ofSeconds(30), Duration.ofSeconds(20))) {
                            return Actions.once(ds, key, () -> {
                                runs.computeIfAbsent(key, k -> new AtomicInteger())
                                        .incrementAndGet();
                            });
                        }
                    }));
                }
                start.countDown();
                boolean first = sent.get(0).get(30, TimeUnit.SECONDS);
                boolean second = sent.get(1).get(30, TimeUnit.SECONDS);
                assertTrue(first ^ second, key + ": exactly one holder ran it (" + first + ", " + second + ")");
                assertEquals(1, runs.get(key).get(), key);
            }
        }
        assertEquals(10, doneRows());
    }

    @Test
    void threadsOfOneHolderClaimingOneKeyAtOnceRunItOnce() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        try (LeaseManager a = LeaseManager.create(data);
                Lease lease = a.acquire("one-holder", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<Integer>>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                results.add(pool.submit(() -> {
                    try (var ignored = dev.fenced.Fencing.bind(lease.token())) {
                        start.await();
                        return Actions.once(data, "email:welcome-5", runs::incrementAndGet);
                    }
                }));
            }
            start.countDown();
            int ran = 0;
            for (Future<Optional<Integer>> r : results) {
                ran += r.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
            }
            assertEquals(1, ran);
            assertEquals(1, runs.get());
        }
    }

    /**
     * The seed's pause: holder A takes the lease (1 s, no renewal) and its thread blocks on a latch; the lease
     * expires by the database clock, B takes it over with a newer token and sends the SMS. A is let go and tries
     * to send it: refused as stale, the SMS went out once.
     */
    @Test
    void aHolderFrozenPastItsLeaseNeverRunsTheActionAgain() throws Exception {
        AtomicInteger sms = new AtomicInteger();
        try (LeaseManager a =
                        LeaseManager.builder(data).holder("a").withoutRenewal().build();
                LeaseManager b = LeaseManager.builder(data).holder("b").build()) {
            CountDownLatch acquired = new CountDownLatch(1);
            CountDownLatch thaw = new CountDownLatch(1);
            Future<Boolean> frozen = pool.submit(() -> {
                try (Lease ignored = a.acquire("frozen-sms", Duration.ofSeconds(1), Duration.ofSeconds(5))) {
                    acquired.countDown();
                    thaw.await(); // the pause: GC, a stalled VM
                    return Actions.once(data, "sms:order-77", sms::incrementAndGet)
                            .isPresent();
                }
            });
            assertTrue(acquired.await(10, TimeUnit.SECONDS));
            try (Lease newer = b.acquire("frozen-sms", Duration.ofSeconds(30), Duration.ofSeconds(10))) {
                assertTrue(
                        Actions.once(data, "sms:order-77", sms::incrementAndGet).isPresent());
                thaw.countDown();
                ExecutionException e = assertThrows(ExecutionException.class, () -> frozen.get(10, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof LeaseLostException, String.valueOf(e.getCause()));
                assertTrue(
                        e.getCause().getMessage().contains("action sms:order-77 not run"),
                        e.getCause().getMessage());
                assertTrue(newer.isValid());
            }
        }
        assertEquals(1, sms.get());
    }

    /**
     * The database decides staleness, not the holder's belief: A still holds a valid-looking lease (no renewal,
     * long ttl) when the database expires it (the database clock jumped) and B takes over. A's claim is refused
     * in the database before B has sent anything; B then sends it: once, by the newer holder.
     */
    @Test
    void aTokenTheDatabaseNoLongerHoldsIsRefusedEvenWhileItsHolderBelievesInIt() throws Exception {
        AtomicInteger sms = new AtomicInteger();
        try (LeaseManager a =
                        LeaseManager.builder(data).holder("a").withoutRenewal().build();
                LeaseManager b = LeaseManager.builder(data).holder("b").build()) {
            Lease old = a.acquire("clock-sms", Duration.ofSeconds(60), Duration.ofSeconds(5));
            db.execute("UPDATE fenced_lease SET expires_at = now() - interval '1 second' WHERE name = 'clock-sms'");
            try (Lease newer = b.acquire("clock-sms", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                CompletableFuture<Void> stale = CompletableFuture.runAsync(
                        () -> {
                            try (var ignored = dev.fenced.Fencing.bind(old.token())) {
                                assertTrue(old.isValid(), "A still believes in its lease");
                                LeaseLostException e = assertThrows(
                                        LeaseLostException.class,
                                        () -> Actions.once(data, "sms:order-78", sms::incrementAndGet));
                                assertTrue(
                                        e.getMessage().contains("not the current token of a live lease"),
                                        e.getMessage());
                            }
                        },
                        pool);
                stale.get(10, TimeUnit.SECONDS);
                assertEquals(0, sms.get());
                assertTrue(
                        Actions.once(data, "sms:order-78", sms::incrementAndGet).isPresent());
            }
            old.close();
        }
        assertEquals(1, sms.get());
    }

    @Test
    void aFailedActionStaysRecordedUnlessReleasedOnFailure() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        try (LeaseManager a = LeaseManager.create(data);
                Lease ignored = a.acquire("failing", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            Runnable failing = () -> {
                tries.incrementAndGet();
                throw new IllegalStateException("provider said 503");
            };
            assertThrows(IllegalStateException.class, () -> Actions.once(data, "sms:fail-1", failing));
            assertFalse(Actions.once(data, "sms:fail-1", failing)); // at most once: not tried again
            assertEquals(1, tries.get());
            assertEquals("java.lang.IllegalStateException: provider said 503", failure("sms:fail-1"));
            assertTrue(Actions.forget(data, "sms:fail-1"));
            assertThrows(IllegalStateException.class, () -> Actions.once(data, "sms:fail-1", failing));
            assertEquals(2, tries.get());

            Actions retrying = Actions.builder(data).releaseOnFailure().build();
            assertThrows(IllegalStateException.class, () -> retrying.once("sms:fail-2", failing));
            assertTrue(
                    retrying.once("sms:fail-2", tries::incrementAndGet).isPresent()); // given back: the next try runs
            assertEquals(4, tries.get());
            assertFalse(retrying.once("sms:fail-2", tries::incrementAndGet).isPresent());
        }
    }

    @Test
    void withoutATokenOrWithABadKeyItSaysSo() {
        FencingException e = assertThrows(FencingException.class, () -> Actions.once(data, "sms:x", () -> {}));
        assertEquals("FN002", e.getSQLState());
        assertTrue(e.getMessage().contains("needs a token"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Actions.once(data, " ", () -> {}));
        assertThrows(
                IllegalArgumentException.class,
                () -> Actions.builder(data).table("a.b.c.d").build());
    }

    /**
     * Spring's TransactionAwareDataSourceProxy inside a transaction hands out the transaction's own connection.
     * Before, {@code once} switched it to autocommit, which committed the caller's open transaction (its INSERT
     * survived the caller's rollback). Now a connection in an open transaction is refused and left alone; one whose
     * transaction has not started yet is used in autocommit and handed back with autocommit off, so the caller's
     * later work still rolls back.
     */
    @Test
    void aCallersOpenTransactionIsNeverCommittedOrAltered() throws Exception {
        DataSource aware = new org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy(data);
        org.springframework.transaction.support.TransactionTemplate tx =
                new org.springframework.transaction.support.TransactionTemplate(
                        new org.springframework.jdbc.datasource.DataSourceTransactionManager(data));
        AtomicInteger sms = new AtomicInteger();
        List<Throwable> refused = new ArrayList<>();
        List<Boolean> autoCommitAfter = new ArrayList<>();
        try (LeaseManager m = LeaseManager.create(data);
                Lease ignored = m.acquire("in-a-transaction", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            tx.executeWithoutResult(status -> {
                try (Connection c = aware.getConnection();
                        Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO orders VALUES (900, 'the caller''s write', NULL)");
                    try {
                        Actions.once(aware, "sms:in-tx-1", sms::incrementAndGet);
                    } catch (Exception e) {
                        refused.add(e);
                    }
                    autoCommitAfter.add(c.getAutoCommit());
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
                status.setRollbackOnly();
            });
            assertEquals(
                    0,
                    db.queryLong("SELECT count(*) FROM orders WHERE id = 900"),
                    "the caller's rolled-back INSERT was committed by Actions.once");
            assertEquals(List.of(false), autoCommitAfter);
            assertEquals(1, refused.size());
            assertTrue(refused.get(0) instanceof FencingException, String.valueOf(refused.get(0)));
            assertEquals("25001", ((FencingException) refused.get(0)).getSQLState());
            assertTrue(
                    refused.get(0).getMessage().contains("in an open transaction"),
                    refused.get(0).getMessage());
            assertEquals(0, sms.get());
            assertEquals(0, db.queryLong("SELECT count(*) FROM fenced_actions WHERE key = 'sms:in-tx-1'"));

            List<Boolean> ran = new ArrayList<>();
            tx.executeWithoutResult(status -> {
                try {
                    ran.add(Actions.once(aware, "sms:in-tx-2", sms::incrementAndGet)
                            .isPresent());
                    try (Connection c = aware.getConnection();
                            Statement s = c.createStatement()) {
                        autoCommitAfter.add(c.getAutoCommit());
                        s.executeUpdate("INSERT INTO orders VALUES (901, 'the caller''s write', NULL)");
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                status.setRollbackOnly();
            });
            assertEquals(List.of(true), ran);
            assertEquals(List.of(false, false), autoCommitAfter);
            assertEquals(0, db.queryLong("SELECT count(*) FROM orders WHERE id = 901"));
            assertEquals(1, sms.get());
            assertEquals(
                    1,
                    db.queryLong("SELECT count(*) FROM fenced_actions WHERE key = 'sms:in-tx-2'"
                            + " AND done_at IS NOT NULL"));
        }
    }

    /**
     * Action keys are one name space across every lease (documented): an action claimed under one lease is not
     * run again under another live lease, so at most once holds per key whichever jobs share it.
     */
    @Test
    void aKeyClaimedUnderOneLeaseIsNotRunAgainUnderAnother() throws Exception {
        AtomicInteger sms = new AtomicInteger();
        try (LeaseManager m = LeaseManager.create(data)) {
            try (Lease ignored = m.acquire("job-x", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                assertTrue(
                        Actions.once(data, "sms:shared-1", sms::incrementAndGet).isPresent());
            }
            try (Lease ignored = m.acquire("job-y", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                assertFalse(
                        Actions.once(data, "sms:shared-1", sms::incrementAndGet).isPresent());
            }
        }
        assertEquals(1, sms.get());
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT lease FROM fenced_actions WHERE key = 'sms:shared-1'")) {
            assertTrue(rs.next());
            assertEquals("job-x", rs.getString(1));
        }
    }

    private static int doneRows() throws Exception {
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM fenced_actions WHERE key LIKE 'sms:order-%'"
                        + " AND key NOT IN ('sms:order-77', 'sms:order-78') AND done_at IS NOT NULL")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String failure(String key) throws Exception {
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT failed FROM fenced_actions WHERE key = '" + key + "'")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
