package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.shedlock.FencedLockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * ShedLock's own provider contract, from its published test suite (shedlock-test-support): lock, unlock,
 * lockAtMostFor as a timeout, lockAtLeastFor, extension (also of expired and unlocked locks) and its fuzz test of
 * eight threads incrementing two counters under two locks; the lock state is read from the lease table by the
 * database clock.
 */
class FencedLockProviderContractIT extends AbstractExtensibleLockProviderIntegrationTest {

    private static TestDatabase db;
    private static FencedLockProvider provider;
    private static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        // A pool, as applications have: the fuzz test takes some thousand leases, each a connection borrow.
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(db.rawUrl());
        c.setMaximumPoolSize(8);
        c.setPoolName("shedlock-contract");
        pool = new HikariDataSource(c);
        provider = new FencedLockProvider(pool);
    }

    @AfterAll
    static void stop() {
        provider.close();
        pool.close();
    }

    static PGSimpleDataSource dataSource(TestDatabase db) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(db.rawUrl());
        return ds;
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertFalse(LeaseRows.isTaken(db, lockName), "lease " + lockName + " is still taken");
    }

    @Override
    protected void assertLocked(String lockName) {
        assertTrue(LeaseRows.isTaken(db, lockName), "lease " + lockName + " is not taken");
    }

    /** lockAtMostFor is an upper bound, so a manager that renews in the background is refused at once. */
    @Test
    void aRenewingLeaseManagerIsRefused() {
        try (LeaseManager renewing = LeaseManager.create(dataSource(db))) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> new FencedLockProvider(renewing));
            assertTrue(e.getMessage().contains("withoutRenewal()"), e.getMessage());
        }
    }
}
