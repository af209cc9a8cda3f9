package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseSchema;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The lease table and sequence: created on first use, or refused with a message that says what to do. */
@Tag("server-sensitive")
class LeaseSchemaIT extends LeaseDatabase {

    /** Each test its own database: a database has one lease table (one token counter), and these make several. */
    @BeforeEach
    void freshDatabase() {
        pool.close();
        db = TestDatabase.create();
        pool = DataSources.pool(db, 8);
    }

    @Test
    void missingTableWithCreateTableOffIsRefusedNamingTheScript() {
        try (LeaseManager leases = LeaseManager.builder(pool)
                .table("never_created")
                .createTable(false)
                .build()) {
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("x", Duration.ofSeconds(5)));
            assertEquals(FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(
                    e.getMessage().contains("\"never_created\"")
                            && e.getMessage().contains("fenced-lease.sql"),
                    e.getMessage());
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM pg_class WHERE relname LIKE 'never_created%'"));
    }

    @Test
    void schemaQualifiedAndQuotedTableNamesGetTheirOwnSequence() throws Exception {
        db.execute("CREATE SCHEMA locks");
        TestDatabase other = TestDatabase.create(); // one lease table per database
        try (var otherPool = DataSources.pool(other, 2);
                LeaseManager plain =
                        LeaseManager.builder(pool).table("Locks.Job_Lease").build();
                LeaseManager quoted = LeaseManager.builder(otherPool)
                        .table("\"Odd \"\"Name\"\"\"")
                        .build()) {
            Lease a = plain.tryAcquire("x", Duration.ofSeconds(5)).orElseThrow();
            Lease b = quoted.tryAcquire("x", Duration.ofSeconds(5)).orElseThrow();
            assertEquals(a.token(), db.queryLong("SELECT token FROM locks.job_lease WHERE name = 'x'"));
            assertEquals(b.token(), other.queryLong("SELECT token FROM \"Odd \"\"Name\"\"\" WHERE name = 'x'"));
            assertEquals(1, db.queryLong("SELECT last_value FROM locks.job_lease_token_seq"));
            assertEquals(1, other.queryLong("SELECT last_value FROM \"Odd \"\"Name\"\"_token_seq\""));
        }
    }

    /** Several processes starting at once on an empty database: one creates the store, none fails. */
    @Test
    void concurrentFirstUseCreatesTheStoreOnce() throws Exception {
        db.execute("CREATE SCHEMA racing");
        ExecutorService threads = Executors.newFixedThreadPool(6);
        List<LeaseManager> managers = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                LeaseManager m =
                        LeaseManager.builder(pool).table("racing.fenced_lease").build();
                managers.add(m);
                int n = i;
                results.add(threads.submit(() -> {
                    go.await();
                    try {
                        return m.tryAcquire("job-" + n, Duration.ofSeconds(5)).isPresent();
                    } finally {
                        FencedTestExtension.unbind();
                    }
                }));
            }
            go.countDown();
            for (Future<Boolean> r : results) {
                assertTrue(r.get(30, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
            managers.forEach(LeaseManager::close);
        }
        assertEquals(6, db.queryLong("SELECT count(*) FROM racing.fenced_lease"));
    }

    @Test
    void aSequenceThatCouldRepeatOrReorderTokensIsRefused() {
        // Someone created the sequence by hand before running the script, with a per-session cache.
        db.execute(
                "CREATE SEQUENCE cached_lease_token_seq CACHE 20",
                LeaseSchema.script().replace("fenced_lease", "cached_lease"));
        try (LeaseManager leases =
                LeaseManager.builder(pool).table("cached_lease").build()) {
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("x", Duration.ofSeconds(5)));
            assertEquals(FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(e.getMessage().contains("CACHE 20"), e.getMessage());
        }
    }

    /** A primary that only runs read-only transactions is told apart from a standby. */
    @Test
    void readOnlyPrimaryIsRefusedAsReadOnlyNotAsStandby() throws Exception {
        TestDatabase readOnly = TestDatabase.create();
        try (LeaseManager setup = LeaseManager.create(DataSources.simple(readOnly))) {
            setup.tryAcquire("warm-up", Duration.ofSeconds(5)).orElseThrow().close();
        }
        readOnly.execute("ALTER DATABASE " + readOnly.name() + " SET default_transaction_read_only = on");
        try (LeaseManager leases = LeaseManager.create(DataSources.simple(readOnly))) {
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("x", Duration.ofSeconds(5)));
            assertEquals(FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(
                    e.getMessage().contains("read-only") && !e.getMessage().contains("is a standby"), e.getMessage());
            assertTrue(e.getCause() != null && "25006".equals(((java.sql.SQLException) e.getCause()).getSQLState()));
        }
    }

    /** A sequence owned by a table goes when the table is dropped, and tokens restart with the new one. */
    @Test
    void aSequenceOwnedByATableIsRefused() {
        db.execute(
                LeaseSchema.script().replace("fenced_lease", "owned_lease"),
                "ALTER SEQUENCE owned_lease_token_seq OWNED BY owned_lease.token");
        try (LeaseManager leases =
                LeaseManager.builder(pool).table("owned_lease").build()) {
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("x", Duration.ofSeconds(5)));
            assertEquals(FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(e.getMessage().contains("OWNED BY NONE"), e.getMessage());
        }
    }

    /** A sequence reset below the tokens already in the table would grant them again. */
    @Test
    void aSequenceBehindTheTokensInTheTableIsRefused() throws Exception {
        try (LeaseManager leases =
                LeaseManager.builder(pool).table("reset_lease").build()) {
            leases.tryAcquire("a", Duration.ofSeconds(5)).orElseThrow().close();
            leases.tryAcquire("b", Duration.ofSeconds(5)).orElseThrow().close();
        }
        db.execute("SELECT setval('reset_lease_token_seq', 1, false)");
        try (LeaseManager leases =
                LeaseManager.builder(pool).table("reset_lease").build()) {
            FencingException e =
                    assertThrows(FencingException.class, () -> leases.tryAcquire("c", Duration.ofSeconds(5)));
            assertEquals(FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(e.getMessage().contains("highest token"), e.getMessage());
        }
    }
}
