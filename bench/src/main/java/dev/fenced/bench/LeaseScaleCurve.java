package dev.fenced.bench;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.EtcdServer;
import dev.fenced.lease.etcd.EtcdLeaseStore;
import dev.fenced.spi.LeaseStore;
import dev.fenced.spi.PostgresLeaseStore;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Issue 28's scale curve: what a lease store does with many leases held. One manager holds {@code N} leases (N
 * growing through the points, 1,000 to 100,000 by default), taken through {@link LeaseManager#tryAcquire} on a few
 * filling threads (not measured). At each point:
 *
 * <ul>
 *   <li><b>grant latency</b>: another manager takes a lease of a new name ({@code tryAcquire}, timed: the manager's
 *       bounded call and the store's grant) and releases it (not timed), {@code --grants} times; p50 and p99;
 *   <li><b>renewal cost</b>: one renewal round for all N held leases, the very call a manager's renewal tick makes
 *       ({@link LeaseStore#renew} with the holder's names, tokens and ttls), {@code --rounds} times and for 2 s at least
 *       (fewer once the point has spent 30 s in rounds): wall time (median round), this JVM's CPU (every thread: jetcd's event loops and the GC
 *       too) and the server's CPU (PostgreSQL's postmaster and backends, or the etcd process), per lease held.
 * </ul>
 *
 * Stores: {@code postgres} ({@link PostgresLeaseStore} on an embedded PostgreSQL, or {@code --jdbc-url}; table
 * {@code bench_scale_lease} in the bench's own database) and {@code etcd} ({@link EtcdLeaseStore} through jetcd on a
 * one-member etcd on loopback ports started here as the store's own tests start it, {@link EtcdServer}). Leases
 * have a 2 h ttl, so nothing expires during a run and the holder's manager does not renew on its own.
 *
 * <pre>java -cp bench/target/fenced-bench.jar dev.fenced.bench.LeaseScaleCurve --store postgres|etcd
 *     [--held 1000,3000,10000,30000,100000] [--grants 200] [--rounds 3] [--fill-threads 4] [--jdbc-url URL]
 *     [--token-index]</pre>
 *
 * {@code --token-index} (PostgreSQL): a second index on the lease table's token column. It was the experiment that
 * found the slope of the PostgreSQL grant curve (the grant's {@code max(token)} scanning the table); fenced's schema
 * now has that index ({@code <table>_token_idx}), so the flag only adds a duplicate.
 */
public final class LeaseScaleCurve {

    private static final Duration TTL = Duration.ofHours(2);
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final long ROUNDS_BUDGET_NANOS = 30_000_000_000L;
    private static final long MIN_ROUNDS_NANOS = 2_000_000_000L;

    private LeaseScaleCurve() {}

    public static void main(String[] args) throws Exception {
        String storeName = "postgres";
        int[] points = {1_000, 3_000, 10_000, 30_000, 100_000};
        int grants = 200;
        int rounds = 3;
        int fillThreads = 4;
        String jdbcUrl = null;
        boolean tokenIndex = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--store" -> storeName = args[++i];
                case "--held" ->
                    points = Arrays.stream(args[++i].split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--grants" -> grants = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--fill-threads" -> fillThreads = Integer.parseInt(args[++i]);
                case "--jdbc-url" -> jdbcUrl = args[++i];
                case "--token-index" -> tokenIndex = true;
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + "; usage: --store postgres|etcd [--held 1000,...] [--grants N] [--rounds N]"
                            + " [--fill-threads N] [--jdbc-url URL] [--token-index]");
            }
        }
        if (jdbcUrl != null) {
            BenchEnv.useServer(jdbcUrl);
        }
        try (Backend backend = storeName.equals("etcd") ? Backend.etcd() : Backend.postgres(tokenIndex)) {
            System.out.printf(
                    Locale.ROOT,
                    "lease store %s (%s%s); Java %s, %d CPUs; load average %s%n",
                    storeName,
                    backend.description(),
                    tokenIndex ? ", with an index on the lease table's token column" : "",
                    System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(),
                    ProcessCpu.loadAverage());
            run(backend, points, grants, rounds, fillThreads);
            System.out.printf(Locale.ROOT, "load average now %s%n", ProcessCpu.loadAverage());
        }
        System.exit(0); // jetcd's and the managers' non-daemon threads
    }

    private static void run(Backend backend, int[] points, int grants, int rounds, int fillThreads) throws Exception {
        LeaseStore store = backend.store();
        // withoutRenewal: the rounds below are the renewals; the 2 h ttl outlives the run.
        LeaseManager holder = LeaseManager.builder(store)
                .withoutRenewal()
                .storeTimeout(TIMEOUT)
                .build();
        LeaseManager grantor = LeaseManager.builder(store)
                .withoutRenewal()
                .storeTimeout(TIMEOUT)
                .build();
        grantor.tryAcquire("setup", TTL).orElseThrow().close(); // a PostgreSQL store creates its table here
        backend.afterFirstGrant();
        List<LeaseStore.Held> held = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        ExecutorService fill = Executors.newFixedThreadPool(fillThreads, r -> {
            Thread t = new Thread(r, "lease-scale-fill");
            t.setDaemon(true);
            return t;
        });
        System.out.println("| held leases | grant p50 µs | grant p99 µs | renewal round ms | wall µs per lease"
                + " | client CPU µs per lease | server CPU µs per lease | rounds | fill s |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (int target : points) {
            long f0 = System.nanoTime();
            List<Future<?>> fills = new ArrayList<>();
            for (int t = 0; t < fillThreads; t++) {
                fills.add(fill.submit(() -> {
                    // Leases bind their tokens to the acquiring thread: these threads only ever hold them.
                    for (int i = next.getAndIncrement(); i < target; i = next.getAndIncrement()) {
                        Lease lease = holder.tryAcquire("held-" + i, TTL).orElseThrow();
                        held.add(new LeaseStore.Held(lease.name(), lease.token(), TTL));
                    }
                    next.set(target); // every filler overshot by one claim: start the next point at target
                    return null;
                }));
            }
            for (Future<?> f : fills) {
                f.get();
            }
            double fillSeconds = (System.nanoTime() - f0) / 1e9;
            List<LeaseStore.Held> leases = List.copyOf(held);
            if (leases.size() != target) {
                throw new IllegalStateException("holding " + leases.size() + " leases, not " + target);
            }
            double[] grantMicros = grantLatencies(grantor, target, grants);
            Rounds renewal = renewals(backend, store, holder.holder(), leases, rounds);
            System.out.printf(
                    Locale.ROOT,
                    "| %,d | %s | %s | %s | %s | %s | %s | %d | %.1f |%n",
                    target,
                    ColdPlanCost.fmt(Stats.percentile(grantMicros, 0.5)),
                    ColdPlanCost.fmt(Stats.percentile(grantMicros, 0.99)),
                    ColdPlanCost.fmt(Stats.of(renewal.wallMicros()).median() / 1e3),
                    ColdPlanCost.fmt(Stats.of(renewal.wallMicros()).median() / target),
                    ColdPlanCost.fmt(renewal.clientCpuMicros() / target),
                    backend.serverCpu().isPresent() ? ColdPlanCost.fmt(renewal.serverCpuMicros() / target) : "n/a",
                    renewal.wallMicros().length,
                    fillSeconds);
        }
    }

    /** {@code n} grants of new names while {@code held} leases are held, each released after: µs each. */
    private static double[] grantLatencies(LeaseManager grantor, int held, int n) throws Exception {
        double[] micros = new double[n];
        for (int i = 0; i < n; i++) {
            String name = "grant-" + held + "-" + i;
            long t0 = System.nanoTime();
            Lease lease = grantor.tryAcquire(name, TTL).orElseThrow();
            micros[i] = (System.nanoTime() - t0) / 1e3;
            lease.close();
        }
        return micros;
    }

    /** Per-round figures of {@link #renewals}. */
    private record Rounds(double[] wallMicros, double clientCpuMicros, double serverCpuMicros) {}

    /**
     * Renewal rounds of every held lease: at least {@code rounds} and, since the operating system counts CPU time in
     * 10 ms ticks, at least 2 s of them; no more once 30 s have passed. Wall time per round; CPU time (this JVM's and
     * the server's) over all the rounds, per round.
     */
    private static Rounds renewals(
            Backend backend, LeaseStore store, String holder, List<LeaseStore.Held> leases, int rounds)
            throws Exception {
        List<Double> wall = new ArrayList<>();
        long s0 = backend.serverCpu().map(ProcessCpu::nanos).orElse(0L);
        long c0 = ProcessCpu.jvmNanos();
        long start = System.nanoTime();
        while (wall.isEmpty()
                || (System.nanoTime() - start < ROUNDS_BUDGET_NANOS
                        && (wall.size() < rounds || System.nanoTime() - start < MIN_ROUNDS_NANOS))) {
            long t0 = System.nanoTime();
            LeaseStore.Renewal r = store.renew(holder, leases, TIMEOUT);
            wall.add((System.nanoTime() - t0) / 1e3);
            if (r.renewed().size() != leases.size()) {
                throw new IllegalStateException(
                        "renewed " + r.renewed().size() + " of " + leases.size() + " held leases");
            }
        }
        long c1 = ProcessCpu.jvmNanos();
        long s1 = backend.serverCpu().map(ProcessCpu::nanos).orElse(0L);
        int n = wall.size();
        return new Rounds(
                wall.stream().mapToDouble(Double::doubleValue).toArray(), (c1 - c0) / 1e3 / n, (s1 - s0) / 1e3 / n);
    }

    /** A store on a server of its own, and that server's CPU time where it runs on this machine. */
    private interface Backend extends AutoCloseable {
        LeaseStore store();

        Optional<ProcessCpu> serverCpu();

        String description();

        /** After the store's first grant (PostgreSQL's table exists then). */
        default void afterFirstGrant() throws java.sql.SQLException {}

        @Override
        void close() throws java.io.IOException;

        /**
         * PostgreSQL; with {@code tokenIndex}, the lease table gets an index on its token column, which the grant's
         * {@code max(token)} (the check that the sequence is ahead of every token granted) can then read instead of
         * scanning the table: the experiment that shows where the grant's cost with many rows comes from.
         */
        static Backend postgres(boolean tokenIndex) {
            BenchEnv env = BenchEnv.get();
            LeaseStore store = PostgresLeaseStore.create(env.raw(), "bench_scale_lease", true);
            Optional<ProcessCpu> cpu = ProcessCpu.tree(env.postmasterPid().orElse(-1));
            return new Backend() {
                @Override
                public LeaseStore store() {
                    return store;
                }

                @Override
                public Optional<ProcessCpu> serverCpu() {
                    return cpu;
                }

                @Override
                public String description() {
                    return env.serverDescription() + ", HikariCP pool of " + BenchEnv.POOL_SIZE;
                }

                @Override
                public void afterFirstGrant() throws java.sql.SQLException {
                    if (tokenIndex) {
                        try (java.sql.Connection c = env.raw().getConnection();
                                java.sql.Statement s = c.createStatement()) {
                            s.execute("CREATE INDEX bench_scale_lease_token ON bench_scale_lease (token)");
                        }
                    }
                }

                @Override
                public void close() {
                    BenchEnv.shutdown(); // drops the database, leases and all
                }
            };
        }

        static Backend etcd() throws Exception {
            if (EtcdServer.binary().isEmpty()) {
                throw new IllegalStateException("etcd is not installed (apt-get install -y etcd-server)");
            }
            EtcdServer etcd = EtcdServer.start("bench");
            Client client = Client.builder().endpoints(etcd.clientUrl()).build();
            LeaseStore store = new EtcdLeaseStore(client, "bench/leases/");
            Optional<ProcessCpu> cpu = ProcessCpu.tree(etcd.pid());
            String version = etcdVersion();
            return new Backend() {
                @Override
                public LeaseStore store() {
                    return store;
                }

                @Override
                public Optional<ProcessCpu> serverCpu() {
                    return cpu;
                }

                @Override
                public String description() {
                    return version + ", one member on loopback, jetcd client";
                }

                @Override
                public void close() throws java.io.IOException {
                    client.close();
                    etcd.close(); // stops etcd and deletes its data, leases and all
                }
            };
        }

        private static String etcdVersion() {
            try {
                Process p = new ProcessBuilder(EtcdServer.binary().orElseThrow().toString(), "--version")
                        .redirectErrorStream(true)
                        .start();
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                return out.lines().findFirst().orElse("etcd").trim();
            } catch (java.io.IOException e) {
                return "etcd";
            }
        }
    }
}
