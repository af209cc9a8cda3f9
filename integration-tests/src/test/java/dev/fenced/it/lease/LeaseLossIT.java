package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseRegistry;
import dev.fenced.internal.lease.LeaseSchema;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A holder that can no longer renew loses its lease when its own deadline passes, and one whose lease
 * the store gave to someone else loses it at the next renewal: either way the token is poisoned at once,
 * isValid turns false and onLost runs.
 */
@ExtendWith(FencedTestExtension.class)
class LeaseLossIT {

    private static TestDatabase db;
    private static String role;
    private static HikariDataSource admin;

    @BeforeAll
    static void setUp(TestDatabase database) {
        db = database;
        role = "fenced_holder_" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
        // The store is created the way createTable=false users create it: the shipped script, run as is.
        db.execute(
                LeaseSchema.script(),
                "CREATE ROLE " + role + " LOGIN",
                "GRANT SELECT, INSERT, UPDATE ON fenced_lease TO " + role,
                "GRANT USAGE ON SEQUENCE fenced_lease_token_seq TO " + role);
        admin = DataSources.pool(db, 2);
    }

    @AfterAll
    static void tearDown() {
        admin.close();
        db.execute("DROP OWNED BY " + role, "DROP ROLE " + role);
    }

    /**
     * A real outage for this holder: its role may no longer log in and its pooled connections are killed
     * by the server, so every renewal fails. The lease is lost at its deadline, not before and not later.
     */
    @Test
    void holderThatCannotRenewLosesTheLeaseAtItsDeadline() throws Exception {
        long failedBefore = FencedStats.counters().get("fenced.leases.renewals_failed");
        long lostBefore = FencedStats.counters().get("fenced.leases.lost");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withUser(db.rawUrl(), role));
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(250);
        try (HikariDataSource holderPool = new HikariDataSource(config);
                LeaseManager holder =
                        LeaseManager.builder(holderPool).createTable(false).build()) {
            long beforeGrant = System.nanoTime();
            Lease lease = holder.tryAcquire("outage", Duration.ofMillis(1200)).orElseThrow();
            AtomicLong lostAt = new AtomicLong();
            CompletableFuture<Lease> lost = new CompletableFuture<>();
            String acquiringThread = Thread.currentThread().getName();
            CompletableFuture<String> callbackThread = new CompletableFuture<>();
            lease.onLost(l -> {
                lostAt.set(System.nanoTime());
                callbackThread.complete(Thread.currentThread().getName());
                lost.complete(l);
            });
            assertEquals(OptionalLong.of(lease.token()), Fencing.currentToken());

            // The pool opens its second connection in the background: one still starting up when the role loses
            // LOGIN has passed the check but is not yet in pg_stat_activity, escapes the termination and renews
            // the lease (seen under load). The outage begins once the pool is full and idle in its growth.
            long full = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (holderPool.getHikariPoolMXBean().getTotalConnections() < config.getMaximumPoolSize()) {
                assertTrue(System.nanoTime() < full, "the holder's pool never filled");
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // Hikari offers no signal for it
            }
            db.execute(
                    "ALTER ROLE " + role + " NOLOGIN",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
            try {
                assertSame(lease, lost.get(10, TimeUnit.SECONDS));
            } finally {
                db.execute("ALTER ROLE " + role + " LOGIN");
            }
            long heldMs = (lostAt.get() - beforeGrant) / 1_000_000;
            // The deadline is the ttl less the default clock-drift margin, a tenth of it.
            assertTrue(heldMs >= 1080, "lost after " + heldMs + " ms, before its 1080 ms deadline");
            // Upper bound: one renewal (every 400 ms) may have gone through before the outage began.
            assertTrue(heldMs < 1200 + 400 + 500, "lost only after " + heldMs + " ms, long after its deadline");
            assertFalse(lease.isValid());
            assertEquals(OptionalLong.empty(), Fencing.currentToken(), "the acquiring thread's token must be poisoned");
            assertNotEquals(acquiringThread, callbackThread.get(), "onLost must not run on the holder's thread");
            assertTrue(
                    FencedStats.counters().get("fenced.leases.renewals_failed") > failedBefore,
                    "failed renewals must be counted");
            assertTrue(FencedStats.counters().get("fenced.leases.lost") > lostBefore);
            // Tokens are per store, and this JVM's test databases all count from 1: other leases may share it.
            assertTrue(
                    List.of(LeaseRegistry.nameOf(lease.token()).split(" or ")).contains("outage"),
                    "the driver names lost leases by token: " + LeaseRegistry.nameOf(lease.token()));

            // A callback registered after the loss runs at once, exactly once.
            CompletableFuture<Lease> late = new CompletableFuture<>();
            lease.onLost(late::complete);
            assertSame(lease, late.get(5, TimeUnit.SECONDS));

            // Once the database clock agrees, somebody else gets it, with a newer token.
            try (LeaseManager next = LeaseManager.create(admin)) {
                Lease taken = next.acquire("outage", Duration.ofSeconds(5), Duration.ofSeconds(5));
                assertTrue(taken.token() > lease.token());
            }
        }
    }

    /** The store says the lease is no longer ours: lost at the next renewal, long before the deadline. */
    @Test
    void renewalThatFindsTheLeaseTakenLosesItAtOnce() throws Exception {
        try (LeaseManager holder = LeaseManager.create(admin)) {
            long beforeGrant = System.nanoTime();
            Lease lease = holder.tryAcquire("taken", Duration.ofSeconds(6)).orElseThrow();
            CompletableFuture<Long> lost = new CompletableFuture<>();
            lease.onLost(l -> lost.complete(System.nanoTime()));
            // Somebody with the power to do so hands the lease to another holder behind our back.
            db.execute("UPDATE fenced_lease SET holder = 'intruder', token = nextval('fenced_lease_token_seq')"
                    + " WHERE name = 'taken'");
            long lostAfterMs = (lost.get(10, TimeUnit.SECONDS) - beforeGrant) / 1_000_000;
            assertTrue(lostAfterMs < 6000, "lost after " + lostAfterMs + " ms: only at the deadline, not at renewal");
            assertFalse(lease.isValid());
            assertEquals(OptionalLong.empty(), Fencing.currentToken());
            lease.close(); // not ours any more: close must leave the intruder's row alone
            assertEquals(
                    1,
                    db.queryLong("SELECT count(*) FROM fenced_lease WHERE name = 'taken' AND holder = 'intruder'"
                            + " AND expires_at > now()"));
        }
    }

    /** The same URL, logging in as {@code user}. */
    private static String withUser(String url, String user) {
        String replaced = url.replaceFirst("([?&])user=[^&]*", "$1user=" + user);
        return replaced.equals(url) ? url + (url.contains("?") ? "&" : "?") + "user=" + user : replaced;
    }

    @Test
    void registryKnowsOnlyThisJvmsLeases() {
        assertNull(LeaseRegistry.nameOf(Long.MAX_VALUE - 7));
    }
}
