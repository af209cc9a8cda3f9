package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The write path checks the lease deadline itself. Here the lease's log output blocks (as when stderr is a
 * pipe nobody drains): whichever thread logs the first loss hangs there, so a renewer that logs before it
 * poisons the next lease never poisons it. A write after that lease's deadline must still be refused.
 */
class WriteDeadlineIT extends LeaseDatabase {

    private static final Logger LEASE_LOG = Logger.getLogger("dev.fenced.lease");
    private final CountDownLatch unblock = new CountDownLatch(1);
    private final CountDownLatch blocked = new CountDownLatch(1);
    private final Handler blocking = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                blocked.countDown();
                try {
                    unblock.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeAll
    static void table() {
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)",
                "INSERT INTO totals VALUES (1, 0, NULL)");
    }

    @AfterEach
    void unblock() {
        unblock.countDown();
        LEASE_LOG.removeHandler(blocking);
    }

    @Test
    void aWriteAfterTheDeadlineIsRefusedWhileTheRenewerIsStuckLogging() throws Exception {
        LEASE_LOG.addHandler(blocking);
        try (LeaseManager leases = LeaseManager.builder(pool).withoutRenewal().build();
                Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE id = 1")) {
            // The first lease runs out first; announcing its loss blocks.
            Thread other = new Thread(() -> {
                try {
                    var unused =
                            leases.tryAcquire("first", Duration.ofMillis(300)).orElseThrow();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            other.start();
            other.join();
            Lease second = leases.tryAcquire("second", Duration.ofMillis(1200)).orElseThrow();
            long granted = System.nanoTime();
            assertTrue(blocked.await(10, TimeUnit.SECONDS), "the first loss was announced (and blocked)");
            ps.setLong(1, 1);
            ps.executeUpdate(); // within the deadline: fine
            TimeUnit.NANOSECONDS.sleep(Math.max(0, granted + TimeUnit.MILLISECONDS.toNanos(1300) - System.nanoTime()));
            ps.setLong(1, 2);
            assertThrows(
                    LeaseLostException.class,
                    ps::executeUpdate,
                    "a write after the lease's deadline goes out with a live token");
            second.close();
        }
    }
}
