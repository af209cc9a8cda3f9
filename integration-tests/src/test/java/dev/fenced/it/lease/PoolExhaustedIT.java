package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pool's only connection is held by the caller itself (HikariCP maximumPoolSize=1, a checkout timeout longer
 * than the store's budget): no connection is ever had, and the error says so (08001, an exhausted pool), not that
 * the store did not answer and its connection was aborted.
 */
@ExtendWith(FencedTestExtension.class)
class PoolExhaustedIT {

    @Test
    void aGrantWithNoConnectionToBeHadNamesTheExhaustedPool(TestDatabase db) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.rawUrl());
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(30_000); // the pool would wait longer than the store's budget
        config.setPoolName("pool-exhausted");
        try (HikariDataSource pool = new HikariDataSource(config);
                LeaseManager leases = LeaseManager.builder(pool)
                        .storeTimeout(Duration.ofSeconds(1))
                        .build()) {
            try (Connection mine = pool.getConnection()) {
                SQLException e =
                        assertThrows(SQLException.class, () -> leases.tryAcquire("job", Duration.ofSeconds(10)));
                assertEquals("08001", e.getSQLState(), e.toString());
                assertTrue(e.getMessage().contains("pool exhausted"), e.getMessage());
                assertFalse(e.getMessage().contains("did not answer"), e.getMessage());
                assertFalse(mine.isClosed());
            }
            // The connection given back, the store is reachable again.
            try (var lease = leases.tryAcquire("job", Duration.ofSeconds(10)).orElseThrow()) {
                assertTrue(lease.token() > 0);
            }
        }
    }
}
