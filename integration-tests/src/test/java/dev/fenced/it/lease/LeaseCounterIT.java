package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One token counter per database. A starter on {@code locks.job_lease} beside a lock provider on {@code fenced_lease}
 * used to be accepted silently: both granted the same name, and since two sequences' numbers met on one protected
 * row, a stale holder's write landed while the newer holder was refused. Now the second lease table is refused at
 * its first use (FN020, naming both tables), and nothing of it is created.
 */
class LeaseCounterIT extends LeaseDatabase {

    @Test
    void aSecondLeaseTableInTheDatabaseIsRefusedAtFirstUse() throws Exception {
        db.execute("CREATE SCHEMA IF NOT EXISTS locks");
        try (LeaseManager first = LeaseManager.create(pool);
                LeaseManager second =
                        LeaseManager.builder(pool).table("locks.job_lease").build()) {
            try (Lease lease =
                    first.tryAcquire("nightly", Duration.ofSeconds(30)).orElseThrow()) {
                FencingException e = assertThrows(
                        FencingException.class, () -> second.tryAcquire("nightly", Duration.ofSeconds(30)));
                assertEquals(FencingException.LEASE_STORE, e.getSQLState());
                assertTrue(
                        e.getMessage().contains("\"locks\".\"job_lease\"")
                                && e.getMessage().contains("public.fenced_lease")
                                && e.getMessage().contains("one lease table per database"),
                        e.getMessage());
                assertTrue(lease.isValid());
            }
            // Refused before anything was created, and again on every later attempt.
            assertEquals(0, db.queryLong("SELECT count(*) FROM pg_class WHERE relname LIKE 'job_lease%'"));
            assertThrows(FencingException.class, () -> second.checkStore());
            assertThrows(FencingException.class, () -> second.tryAcquire("other", Duration.ofSeconds(30)));
        }
    }

    /** Made by a migration beside the default one: both tables exist, and the first use of either is refused. */
    @Test
    void twoExistingLeaseTablesRefuseBoth() throws Exception {
        db.execute(
                dev.fenced.internal.lease.LeaseSchema.script(),
                "CREATE SCHEMA IF NOT EXISTS jobs",
                // the script for that name, as fenced substitutes it (the index name takes no schema)
                dev.fenced.internal.lease.LeaseSchema.script(
                        dev.fenced.internal.lease.LeaseTableName.parse("jobs.own_lease")));
        try (LeaseManager other =
                LeaseManager.builder(pool).table("jobs.own_lease").build()) {
            FencingException e =
                    assertThrows(FencingException.class, () -> other.tryAcquire("x", Duration.ofSeconds(30)));
            assertEquals(FencingException.LEASE_STORE, e.getSQLState());
            assertTrue(e.getMessage().contains("fenced_lease"), e.getMessage());
        } finally {
            db.execute("DROP TABLE jobs.own_lease", "DROP SEQUENCE jobs.own_lease_token_seq");
        }
    }
}
