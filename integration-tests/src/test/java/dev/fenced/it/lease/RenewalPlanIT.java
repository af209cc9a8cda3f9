package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseStore;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The renewal and release statements join the lease table to {@code unnest} of their arrays. Once pgjdbc
 * server-prepares them (fifth use on a connection) PostgreSQL may plan them generically, blind to the arrays'
 * length, and for many leases picks a nested loop that compares every lease with every element: quadratic in
 * the leases held. This runs both statements many times on one session (a pool of one connection) and asserts,
 * from that session's {@code pg_prepared_statements}, that PostgreSQL never planned them generically.
 */
@Tag("server-sensitive")
class RenewalPlanIT {

    private static final int HELD = 300;
    /** Well past pgjdbc's prepare threshold (5) plus PostgreSQL's five custom plans before a generic one. */
    private static final int RUNS = 15;

    private static TestDatabase db;
    private static HikariDataSource oneSession;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        oneSession = DataSources.pool(db, 1);
    }

    @AfterAll
    static void tearDown() {
        oneSession.close();
    }

    @Test
    void renewalAndReleaseAreNeverPlannedGenerically() throws Exception {
        Duration ttl = Duration.ofMinutes(30); // the manager's own renewer stays out of the way
        LeaseStore store = new LeaseStore(oneSession, LeaseTableName.parse("fenced_lease"), false, "plan-test");
        try (LeaseManager manager = LeaseManager.create(oneSession)) {
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < HELD; i++) {
                held.add(manager.tryAcquire("plan-" + i, ttl).orElseThrow());
            }
            String[] names = held.stream().map(Lease::name).toArray(String[]::new);
            long[] tokens = held.stream().mapToLong(Lease::token).toArray();
            long[] ttls = new long[HELD];
            java.util.Arrays.fill(ttls, ttl.toMillis());
            for (int run = 0; run < RUNS; run++) {
                assertEquals(
                        HELD,
                        store.renew(manager.holder(), names, tokens, ttls, 30_000_000_000L, dev.fenced.Ticker.system())
                                .renewed()
                                .size());
                // another holder's release matches no row, but is planned and run like the real one
                assertEquals(0, store.release("not-the-holder", names, tokens, 30_000_000_000L));
            }
            assertEquals(
                    0,
                    genericPlansOfUnnestStatements(),
                    "a lease statement over unnest(...) was planned"
                            + " generically; with many leases that plan is a quadratic nested loop");
        } finally {
            FencedTestExtension.unbind();
        }
    }

    /** Generic plans made so far, in this pool's one session, for prepared statements that unnest arrays. */
    private static long genericPlansOfUnnestStatements() throws Exception {
        try (Connection c = oneSession.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT coalesce(sum(generic_plans), 0) FROM pg_prepared_statements"
                        + " WHERE statement LIKE '%unnest(%'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
