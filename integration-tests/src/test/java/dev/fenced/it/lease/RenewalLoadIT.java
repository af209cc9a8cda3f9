package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseStore;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How much one manager's renewal costs: the one statement that renews every held lease, timed at 1,000
 * and 10,000 held leases. Prints figures; asserts only that every lease was renewed, never a timing.
 */
class RenewalLoadIT {

    /** Past pgjdbc's prepare threshold and PostgreSQL's five custom plans: the steady state a renewer reaches. */
    private static final int RUNS = 15;

    private static TestDatabase db;
    private static HikariDataSource pool;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        pool = DataSources.pool(db, 4);
    }

    @AfterAll
    static void tearDown() {
        pool.close();
    }

    private static String setting(String name) throws Exception {
        try (var c = db.rawConnection();
                var st = c.createStatement();
                var rs = st.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void renewalStatementTimeAtOneAndTenThousandLeases() throws Exception {
        // Long ttls: the manager's own renewer stays out of the way while we time the statement it sends.
        Duration ttl = Duration.ofMinutes(30);
        LeaseStore store = new LeaseStore(pool, LeaseTableName.parse("fenced_lease"), false, "load-test");
        StringBuilder report = new StringBuilder(String.format(
                Locale.ROOT,
                "renewal load (%s PostgreSQL %s, fsync=%s, synchronous_commit=%s; one statement per tick):%n",
                TestDatabase.isEmbedded() ? "embedded" : "external",
                setting("server_version"),
                setting("fsync"),
                setting("synchronous_commit")));
        try (LeaseManager manager = LeaseManager.create(pool)) {
            List<Lease> held = new ArrayList<>();
            long grantStart = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                held.add(manager.tryAcquire("load-" + i, ttl).orElseThrow());
            }
            double grantMs = (System.nanoTime() - grantStart) / 1e6;
            report.append(String.format(
                    Locale.ROOT, "  10000 grants one by one: %.0f ms (%.3f ms each)%n", grantMs, grantMs / 10_000));
            for (int n : new int[] {1_000, 10_000}) {
                String[] names = new String[n];
                long[] tokens = new long[n];
                long[] ttls = new long[n];
                for (int i = 0; i < n; i++) {
                    names[i] = held.get(i).name();
                    tokens[i] = held.get(i).token();
                    ttls[i] = ttl.toMillis();
                }
                double[] ms = new double[RUNS];
                for (int run = 0; run < RUNS; run++) {
                    long t0 = System.nanoTime();
                    LeaseStore.Renewal r = store.renew(
                            manager.holder(), names, tokens, ttls, 30_000_000_000L, dev.fenced.Ticker.system());
                    ms[run] = (System.nanoTime() - t0) / 1e6;
                    assertEquals(n, r.renewed().size(), "every lease must be renewed");
                }
                Arrays.sort(ms);
                report.append(String.format(
                        Locale.ROOT,
                        "  %5d leases in one statement: median %.1f ms, min %.1f ms, max %.1f ms (%d runs)%n",
                        n,
                        ms[RUNS / 2],
                        ms[0],
                        ms[RUNS - 1],
                        RUNS));
            }
            long closeStart = System.nanoTime();
            manager.close(); // releases all 10,000 with one statement
            report.append(String.format(
                    Locale.ROOT,
                    "  close (release of 10000 in one statement): %.0f ms%n",
                    (System.nanoTime() - closeStart) / 1e6));
        } finally {
            FencedTestExtension.unbind();
        }
        System.out.print(report);
        assertEquals(0, db.queryLong("SELECT count(*) FROM fenced_lease WHERE expires_at > now()"));
    }
}
