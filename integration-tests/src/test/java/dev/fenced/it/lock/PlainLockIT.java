package dev.fenced.it.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencingException;
import dev.fenced.PlainLock;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The plain-lock level on real PostgreSQL, with real contention, through a fenced HikariCP pool. */
class PlainLockIT {

    private static TestDatabase db;
    private static HikariDataSource pool;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)",
                "INSERT INTO counter VALUES (1, 0)",
                "CREATE TABLE audit (note text)",
                "CREATE TABLE notes (note text)",
                // a fenced pool must protect something (issue 24, item 8); what these tests write is not protected
                "CREATE TABLE guarded (id int PRIMARY KEY, last_token bigint)");
        pool = Pools.fenced(db, 6, "fenced.tables=guarded");
    }

    @AfterAll
    static void tearDown() {
        pool.close();
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void holdersExcludeEachOther() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            done.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 25; i++) {
                    // read, then write what was read plus one: lost updates without the lock
                    PlainLock.run(pool, "counter", Duration.ofSeconds(20), Duration.ofSeconds(20), c -> {
                        int n;
                        try (Statement s = c.createStatement();
                                ResultSet rs = s.executeQuery("SELECT n FROM counter")) {
                            rs.next();
                            n = rs.getInt(1);
                        }
                        try (PreparedStatement ps = c.prepareStatement("UPDATE counter SET n = ? WHERE id = 1")) {
                            ps.setInt(1, n + 1);
                            ps.executeUpdate();
                        }
                        return null;
                    });
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n FROM counter")) {
            rs.next();
            assertEquals(100, rs.getInt(1));
        }
    }

    @Test
    void aWaiterGivesUpAfterItsLockTimeoutWithAClearError() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<String> holder =
                threads.submit(() -> PlainLock.run(pool, "report", Duration.ofSeconds(5), Duration.ofSeconds(30), c -> {
                    held.countDown();
                    release.await();
                    return "held";
                }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        FencingException e = assertThrows(
                FencingException.class,
                () -> PlainLock.run(pool, "report", Duration.ofMillis(200), Duration.ofSeconds(5), c -> "never"));
        assertEquals(FencingException.LOCK_TIMEOUT, e.getSQLState());
        assertTrue(
                e.getMessage().contains("plain lock 'report' is held by another transaction; gave up after 200 ms"),
                e.getMessage());
        // another name is free meanwhile
        assertEquals(
                "other",
                PlainLock.run(pool, "other-report", Duration.ofMillis(200), Duration.ofSeconds(5), c -> "other"));
        release.countDown();
        assertEquals("held", holder.get(10, TimeUnit.SECONDS));
        assertEquals(
                "again", PlainLock.run(pool, "report", Duration.ofMillis(200), Duration.ofSeconds(5), c -> "again"));
    }

    @Test
    void aHolderIdlePastItsTimeoutLosesItsTransactionAndTheLock() throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        Future<Object> stalled =
                threads.submit(() -> PlainLock.run(pool, "stall", Duration.ofSeconds(5), Duration.ofMillis(300), c -> {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("INSERT INTO audit VALUES ('written by the stalled holder')");
                    }
                    // The holder stalls (a slow call elsewhere) until the server has ended its session. The lock
                    // ends with that session, so a waiter for it gets it exactly then: the server's own latch.
                    assertEquals(
                            "taken over",
                            PlainLock.run(
                                    pool, "stall", Duration.ofSeconds(20), Duration.ofSeconds(5), w -> "taken over"));
                    ended.countDown();
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("INSERT INTO audit VALUES ('after the stall')");
                    }
                    return null;
                }));
        java.util.concurrent.ExecutionException e =
                assertThrows(java.util.concurrent.ExecutionException.class, () -> stalled.get(30, TimeUnit.SECONDS));
        assertTrue(ended.await(0, TimeUnit.SECONDS));
        FencingException lost = (FencingException) e.getCause();
        assertEquals(FencingException.LOCK_LOST, lost.getSQLState());
        assertTrue(
                lost.getMessage().contains("plain lock 'stall' lost: the transaction was idle longer than 300 ms"),
                lost.getMessage());
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM audit")) {
            rs.next();
            assertEquals(0, rs.getInt(1), "nothing the stalled holder wrote was committed");
        }
        // and the lock is free at once
        assertEquals("next", PlainLock.run(pool, "stall", Duration.ofMillis(200), Duration.ofSeconds(5), c -> "next"));
    }

    /** A way the work might end its own transaction (and with it the lock) and go on. */
    private interface Ending {
        void end(Connection c) throws Exception;
    }

    /**
     * The work ends its transaction (each way an application might: JDBC calls, SQL text, a batch, a statement's
     * own connection) and goes on, swallowing whatever happened. Before, the lock went with the transaction and a
     * second worker got in at once while the first went on writing; now the ending is refused, the lock stays held,
     * the second worker waits (and gives up), and the first commits everything in its one transaction.
     */
    @Test
    void theWorkCannotEndItsTransactionAndLetASecondWorkerOverlap() throws Exception {
        java.util.Map<String, Ending> endings = new java.util.LinkedHashMap<>();
        endings.put("commit()", Connection::commit);
        endings.put("rollback()", Connection::rollback);
        endings.put("setAutoCommit(true)", c -> c.setAutoCommit(true));
        endings.put("COMMIT", c -> c.createStatement().execute("COMMIT"));
        endings.put("END in a multi-statement text", c -> c.createStatement().execute("SELECT 1; END"));
        endings.put("ROLLBACK AND CHAIN", c -> c.createStatement().executeUpdate("ROLLBACK AND CHAIN"));
        endings.put(
                "prepared COMMIT", c -> c.prepareStatement("/* done */ commit").execute());
        endings.put("batched ABORT", c -> {
            Statement s = c.createStatement();
            s.addBatch("INSERT INTO notes VALUES ('batched')");
            s.addBatch("ABORT");
            s.executeBatch();
        });
        endings.put(
                "statement's connection commit()",
                c -> c.createStatement().getConnection().commit());
        for (var ending : endings.entrySet()) {
            db.execute("DELETE FROM notes");
            CountDownLatch ended = new CountDownLatch(1);
            CountDownLatch goOn = new CountDownLatch(1);
            List<String> refusals = new java.util.concurrent.CopyOnWriteArrayList<>();
            Future<Object> first = threads.submit(() ->
                    PlainLock.run(pool, "overlap", Duration.ofSeconds(5), Duration.ofSeconds(30), c -> {
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("INSERT INTO notes VALUES ('before')");
                        }
                        try {
                            ending.getValue().end(c);
                        } catch (SQLException e) {
                            refusals.add(e.getSQLState() + " " + e.getMessage());
                        }
                        ended.countDown();
                        goOn.await();
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("INSERT INTO notes VALUES ('after')");
                        }
                        return null;
                    }));
            assertTrue(ended.await(10, TimeUnit.SECONDS), ending.getKey());
            try {
                FencingException busy = assertThrows(
                        FencingException.class,
                        () -> PlainLock.run(
                                pool, "overlap", Duration.ofMillis(300), Duration.ofSeconds(5), c -> "overlapping"),
                        ending.getKey() + ": a second worker got the lock while the first was still working");
                assertEquals(FencingException.LOCK_TIMEOUT, busy.getSQLState(), ending.getKey());
            } finally {
                goOn.countDown();
            }
            first.get(10, TimeUnit.SECONDS);
            assertEquals(1, refusals.size(), ending.getKey());
            assertTrue(
                    refusals.get(0)
                            .startsWith(
                                    "FN031 fenced: plain lock 'overlap': the work may not end its" + " transaction"),
                    ending.getKey() + ": " + refusals.get(0));
            assertEquals(2, db.queryLong("SELECT count(*) FROM notes"), ending.getKey());
        }
    }

    /**
     * A transaction ended around the guarded connection (pgjdbc's own object, the documented raw door): the work's
     * statements after it ran without the lock; they are rolled back and the run fails with FN031.
     */
    @Test
    void aTransactionEndedAroundTheGuardIsFoundAndWhatFollowedIsRolledBack() throws Exception {
        db.execute("DELETE FROM notes");
        java.util.concurrent.ExecutionException e = assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> threads.submit(() ->
                                PlainLock.run(pool, "around", Duration.ofSeconds(5), Duration.ofSeconds(30), c -> {
                                    try (Statement s = c.createStatement()) {
                                        s.executeUpdate("INSERT INTO notes VALUES ('under the lock')");
                                    }
                                    ((Connection) c.unwrap(org.postgresql.PGConnection.class)).commit();
                                    try (Statement s = c.createStatement()) {
                                        s.executeUpdate("INSERT INTO notes VALUES ('without the lock')");
                                    }
                                    return null;
                                }))
                        .get(10, TimeUnit.SECONDS));
        FencingException lost = (FencingException) e.getCause();
        assertEquals(FencingException.LOCK_LOST, lost.getSQLState());
        assertTrue(lost.getMessage().contains("ended through a path around the connection"), lost.getMessage());
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT string_agg(note, ',') FROM notes")) {
            rs.next();
            assertEquals("under the lock", rs.getString(1));
        }
    }

    /**
     * Spring's TransactionAwareDataSourceProxy inside a transaction hands out the transaction's connection. Before,
     * PlainLock ran on it and its commit committed the caller's earlier INSERT, which the caller then rolled back in
     * vain. Now the run is refused (25001) before anything is sent, and the caller's transaction is left alone.
     */
    @Test
    void aCallersOpenTransactionIsNeitherUsedNorCommitted() throws Exception {
        javax.sql.DataSource aware = new org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy(pool);
        org.springframework.transaction.support.TransactionTemplate tx =
                new org.springframework.transaction.support.TransactionTemplate(
                        new org.springframework.jdbc.datasource.DataSourceTransactionManager(pool));
        List<Throwable> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        tx.executeWithoutResult(status -> {
            try (Connection c = aware.getConnection();
                    Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO notes VALUES ('the caller''s write')");
                try {
                    PlainLock.run(aware, "in-a-transaction", Duration.ofSeconds(5), Duration.ofSeconds(5), w -> null);
                } catch (Exception e) {
                    refused.add(e);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            status.setRollbackOnly();
        });
        assertEquals(
                0,
                db.queryLong("SELECT count(*) FROM notes WHERE note = 'the caller''s write'"),
                "the caller's rolled-back INSERT was committed by PlainLock");
        assertEquals(1, refused.size());
        assertEquals("25001", ((FencingException) refused.get(0)).getSQLState());
        assertTrue(
                refused.get(0).getMessage().contains("needs a connection of its own"),
                refused.get(0).getMessage());
    }

    @Test
    void badArgumentsAreNamed() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> PlainLock.run(pool, "x", Duration.ZERO, Duration.ofSeconds(1), c -> null));
        assertTrue(e.getMessage().contains("lockTimeout must be a positive duration"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> PlainLock.run(pool, " ", Duration.ofSeconds(1), Duration.ofSeconds(1), c -> null));
    }
}
