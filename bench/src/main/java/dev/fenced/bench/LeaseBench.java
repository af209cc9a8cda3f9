package dev.fenced.bench;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.LeaseStore;
import dev.fenced.internal.lease.LeaseTableName;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Leases on plain pgjdbc (HikariCP, pool of 4), in their own table {@code bench_lease}.
 *
 * <p>{@link #a_grant}: {@code tryAcquire} + {@code close} of one name, again and again, so every grant takes
 * over the released row (the locked path a scheduler's next run takes). {@link #b_renew1000}: the one statement a
 * manager's renewal tick sends, for {@link #HELD} leases really held by a manager: {@link LeaseStore#renew}, the
 * same call {@code Renewer} makes, with the manager's holder, names, tokens and ttls (timing the statement
 * directly, rather than waiting for the timer, is what {@code RenewalLoadIT} does too).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@Threads(1)
public class LeaseBench {

    public static final int HELD = 1_000;
    /** Long enough that the managers' own renewers stay out of the way during a run. */
    private static final Duration TTL = Duration.ofMinutes(30);

    private static LeaseManager grants;
    private static Renewal renewal;

    /** A manager holding {@link #HELD} leases, and what its renewal tick would send. */
    private record Renewal(LeaseManager manager, LeaseStore store, String[] names, long[] tokens, long[] ttls) {}

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        init();
    }

    private static synchronized void init() throws Exception {
        if (grants != null) {
            return;
        }
        BenchEnv env = BenchEnv.get();
        grants = LeaseManager.builder(env.raw()).table(BenchEnv.LEASE_TABLE).build();
        LeaseManager holder =
                LeaseManager.builder(env.raw()).table(BenchEnv.LEASE_TABLE).build();
        String[] names = new String[HELD];
        long[] tokens = new long[HELD];
        long[] ttls = new long[HELD];
        // Leases bind their token to the acquiring thread: take them on a thread of their own, not a benchmark's.
        ExecutorService taker = Executors.newSingleThreadExecutor(r -> new Thread(r, "bench-lease-taker"));
        try {
            taker.submit(() -> {
                        for (int i = 0; i < HELD; i++) {
                            Lease lease =
                                    holder.tryAcquire("bench-renew-" + i, TTL).orElseThrow();
                            names[i] = lease.name();
                            tokens[i] = lease.token();
                            ttls[i] = TTL.toMillis();
                        }
                        return null;
                    })
                    .get();
        } finally {
            taker.shutdown();
        }
        LeaseStore store = new LeaseStore(env.raw(), LeaseTableName.parse(BenchEnv.LEASE_TABLE), false, "bench");
        renewal = new Renewal(holder, store, names, tokens, ttls);
        if (renewOnce() != HELD) {
            throw new IllegalStateException("the renewal statement did not renew every held lease");
        }
        env.onClose(() -> {
            holder.close(); // releases all of them in one statement
            grants.close();
        });
    }

    private static int renewOnce() throws SQLException {
        Renewal r = renewal;
        return r.store()
                .renew(
                        r.manager().holder(),
                        r.names(),
                        r.tokens(),
                        r.ttls(),
                        60_000_000_000L,
                        dev.fenced.Ticker.system())
                .renewed()
                .size();
    }

    /** Grant (takeover of a released row, new token) and release: two statements. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long a_grant() throws SQLException {
        try (Lease lease = grants.tryAcquire("bench-grant", TTL).orElseThrow()) {
            return lease.token();
        }
    }

    /** One renewal statement for all {@link #HELD} leases. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public int b_renew1000() throws SQLException {
        return renewOnce();
    }
}
