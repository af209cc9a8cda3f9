package dev.fenced.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Issue 26's write curves: what fenced adds to an UPDATE by primary key as the number of protected tables configured
 * grows (1 to 2,000, 2 client threads) and as the number of client threads grows (1 to 64, one protected table).
 * Three paths, paired as in {@link PairedUpdateBench}: each client thread runs a block of {@value #BLOCK} UPDATEs on
 * each path in turn (the order rotating through all six orders), timing each block apart, so the paths share the
 * machine's state; the figures are ratios within the same run:
 *
 * <ul>
 *   <li>(a) raw pgjdbc, {@code UPDATE bench_w<k> SET amount = ? WHERE id = ?};
 *   <li>(b) raw pgjdbc, the SQL fenced sends for it written by hand (the token bound by hand): the fence's own
 *       server-side price;
 *   <li>(c) fenced ({@code jdbc:fenced:postgresql:} with {@code fenced.tables} naming the first P tables), the
 *       user's text, the token bound to the thread as a lease binds it.
 * </ul>
 *
 * Throughput ratios (c)/(b) (fenced's client side alone) and (c)/(a) (all of fencing), and client CPU per UPDATE
 * (c) − (b), median over rounds. Each table {@code bench_w<k>} has one row per client thread, each thread updates
 * its own row; on the tables curve a thread's UPDATEs go to the configured tables in turn, so P distinct texts per
 * path (each path keeps its own pool of HikariCP connections, one per thread).
 *
 * <pre>java -cp bench/target/fenced-bench.jar dev.fenced.bench.WriteScaleCurve [--tables 1,10,100,1000,2000]
 *     [--threads 1,2,4,8,16,32,64] [--rounds 5] [--round-ms 1000] [--warmup-ms 2000] [--jdbc-url URL]
 *     [--statement-cache N]</pre>
 *
 * {@code --statement-cache N} sets pgjdbc's {@code preparedStatementCacheQueries} (default 256 per connection) on
 * every pool: past 256 distinct texts a connection no longer keeps them server-prepared, and each UPDATE is parsed
 * and planned again by PostgreSQL, on every path.
 */
public final class WriteScaleCurve {

    static final int BLOCK = 16;
    private static final String[] PATHS = {"a", "b", "c"};
    private static final int[][] ORDERS = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private WriteScaleCurve() {}

    public static void main(String[] args) throws Exception {
        int[] tables = {1, 10, 100, 1_000, 2_000};
        int[] threads = {1, 2, 4, 8, 16, 32, 64};
        int rounds = 5;
        int roundMs = 1_000;
        int warmupMs = 2_000;
        String jdbcUrl = null;
        int statementCache = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--tables" -> tables = ints(args[++i]);
                case "--threads" -> threads = ints(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--round-ms" -> roundMs = Integer.parseInt(args[++i]);
                case "--warmup-ms" -> warmupMs = Integer.parseInt(args[++i]);
                case "--jdbc-url" -> jdbcUrl = args[++i];
                case "--statement-cache" -> statementCache = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + "; usage: [--tables 1,10,...] [--threads 1,2,...] [--rounds N] [--round-ms MS]"
                            + " [--warmup-ms MS] [--jdbc-url URL] [--statement-cache N]");
            }
        }
        if (jdbcUrl != null) {
            BenchEnv.useServer(jdbcUrl);
        }
        BenchEnv env = BenchEnv.get();
        int maxTables = Arrays.stream(tables).max().orElse(1);
        int maxThreads = Math.max(2, Arrays.stream(threads).max().orElse(2));
        System.out.printf(
                Locale.ROOT,
                "%s; Java %s, %d CPUs; load average %s%n",
                env.serverDescription(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(),
                ProcessCpu.loadAverage());
        createTables(env, maxTables, maxThreads);
        Settings s = new Settings(rounds, roundMs, warmupMs, statementCache);
        if (statementCache > 0) {
            System.out.printf(Locale.ROOT, "pgjdbc preparedStatementCacheQueries=%d on every pool%n", statementCache);
        }
        System.out.printf(Locale.ROOT, "%ncurve, protected tables (2 client threads):%n");
        header("protected tables");
        for (int p : tables) {
            row(p, measure(env, p, 2, s));
        }
        System.out.printf(Locale.ROOT, "%ncurve, client threads (1 protected table):%n");
        header("client threads");
        for (int t : threads) {
            row(t, measure(env, 1, t, s));
        }
        System.out.printf(Locale.ROOT, "load average now %s%n", ProcessCpu.loadAverage());
        BenchEnv.shutdown();
    }

    /** {@code statementCache}: pgjdbc's preparedStatementCacheQueries on both pools, 0 for its default (256). */
    private record Settings(int rounds, int roundMs, int warmupMs, int statementCache) {}

    /** Per round: the three paths' ops, wall ns and CPU ns summed over the threads. */
    private record Result(double[] cb, double[] ca, double[] cpuCb, double[] rawMicros) {}

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    private static String table(int k) {
        return "bench_w" + k;
    }

    private static String update(int k) {
        return "UPDATE " + table(k) + " SET amount = ? WHERE id = ?";
    }

    /** {@code n} tables like the bench's protected table, one row per client thread. */
    private static void createTables(BenchEnv env, int n, int rows) throws SQLException {
        long t0 = System.nanoTime();
        try (Connection c = env.raw().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN FOR k IN 0.." + (n - 1) + " LOOP EXECUTE format("
                    + "'CREATE TABLE bench_w%s (id int PRIMARY KEY, amount bigint NOT NULL, " + BenchEnv.FENCE_COLUMN
                    + " bigint) WITH (fillfactor = 70); INSERT INTO bench_w%s SELECT g, 0, 0 FROM generate_series(1, "
                    + rows + ") g', k, k); END LOOP; END $$");
        }
        System.out.printf(
                Locale.ROOT, "%,d tables of %d rows created in %.1f s%n", n, rows, (System.nanoTime() - t0) / 1e9);
    }

    private static void header(String x) {
        System.out.println("| " + x + " | (c)/(b) | (c)/(a) | client CPU µs/op (c) − (b) | (a) µs per UPDATE |");
        System.out.println("|---|---|---|---|---|");
    }

    private static void row(int x, Result r) {
        System.out.printf(
                Locale.ROOT,
                "| %,d | %s | %s | %s | %s |%n",
                x,
                range(r.cb(), "%.3f"),
                range(r.ca(), "%.3f"),
                range(r.cpuCb(), "%+.2f"),
                ColdPlanCost.fmt(Stats.of(r.rawMicros()).median()));
    }

    /** {@code median [q1–q3]} of per-round values. */
    private static String range(double[] values, String format) {
        Stats s = Stats.of(values);
        return String.format(Locale.ROOT, format + " [" + format + "–" + format + "]", s.median(), s.q1(), s.q3());
    }

    /** One point: {@code tables} protected, {@code threads} clients, warm-up then the rounds. */
    private static Result measure(BenchEnv env, int tables, int threads, Settings s) throws Exception {
        Properties rawProps = new Properties();
        if (s.statementCache() > 0) {
            rawProps.setProperty("preparedStatementCacheQueries", Integer.toString(s.statementCache()));
            rawProps.setProperty("preparedStatementCacheSizeMiB", "64");
        }
        Properties fencedProps = new Properties();
        fencedProps.putAll(rawProps);
        fencedProps.setProperty(
                "fenced.tables",
                IntStream.range(0, tables).mapToObj(WriteScaleCurve::table).collect(Collectors.joining(",")));
        String fencedUrl = "jdbc:fenced:" + env.rawUrl().substring("jdbc:".length());
        try (HikariDataSource raw = BenchEnv.pool("scale-raw", env.rawUrl(), null, threads, rawProps);
                HikariDataSource fenced =
                        BenchEnv.pool("scale-fenced", fencedUrl, "dev.fenced.FencedDriver", threads, fencedProps)) {
            String[] texts = new String[tables];
            String[] handFenced = new String[tables];
            try (Connection c = fenced.getConnection()) {
                for (int k = 0; k < tables; k++) {
                    texts[k] = update(k);
                    handFenced[k] = c.nativeSQL(texts[k]);
                    if (handFenced[k].equals(texts[k])) {
                        throw new IllegalStateException(table(k) + " is not protected: " + texts[k]);
                    }
                }
            }
            int total = 1 + s.rounds();
            long roundNanos = s.roundMs() * 1_000_000L;
            // per thread, per round (0 is the warm-up), per path: ops, wall ns, CPU ns
            long[][][][] figures = new long[threads][total][3][3];
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            long[] start = new long[1];
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> clients = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    clients.add(pool.submit(() -> {
                        // the token every write is made under, bound as a lease binds it (the raw paths ignore it)
                        FencingScope scope = Fencing.bind(BenchEnv.TOKEN);
                        try {
                            ready.countDown();
                            go.await();
                            client(thread, raw, fenced, texts, handFenced, figures[thread], start[0], s, roundNanos);
                        } finally {
                            scope.close();
                        }
                        return null;
                    }));
                }
                ready.await();
                start[0] = System.nanoTime();
                go.countDown();
                for (Future<?> f : clients) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            return result(figures, s.rounds());
        }
    }

    private static void client(
            int thread,
            HikariDataSource raw,
            HikariDataSource fenced,
            String[] texts,
            String[] handFenced,
            long[][][] figures,
            long start,
            Settings s,
            long roundNanos)
            throws SQLException {
        int id = thread + 1;
        long amount = 0;
        int table = thread % texts.length;
        int order = thread % ORDERS.length;
        for (int round = 0; round <= s.rounds(); round++) {
            long end = start + s.warmupMs() * 1_000_000L + round * roundNanos;
            do {
                for (int path : ORDERS[order]) {
                    long w0 = System.nanoTime();
                    long c0 = THREADS.getCurrentThreadCpuTime();
                    for (int i = 0; i < BLOCK; i++) {
                        int k = (table + i) % texts.length;
                        int rows = switch (path) {
                            case 0 -> UpdateBench.update(raw, texts[k], ++amount, id);
                            case 1 -> UpdateBench.handFencedUpdate(raw, handFenced[k], ++amount, id);
                            default -> UpdateBench.update(fenced, texts[k], ++amount, id);
                        };
                        if (rows != 1) {
                            throw new IllegalStateException(PATHS[path] + " updated " + rows + " rows of " + table(k));
                        }
                    }
                    long[] f = figures[round][path];
                    f[0] += BLOCK;
                    f[1] += System.nanoTime() - w0;
                    f[2] += THREADS.getCurrentThreadCpuTime() - c0;
                }
                order = (order + 1) % ORDERS.length;
                table = (table + BLOCK) % texts.length;
            } while (System.nanoTime() < end);
        }
    }

    /** Per measured round: (c)/(b) and (c)/(a) in throughput, (c) − (b) in CPU µs per UPDATE, (a) µs per UPDATE. */
    private static Result result(long[][][][] figures, int rounds) {
        double[] cb = new double[rounds];
        double[] ca = new double[rounds];
        double[] cpu = new double[rounds];
        double[] rawMicros = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            double[] wallPerOp = new double[3];
            double[] cpuPerOp = new double[3];
            for (int path = 0; path < 3; path++) {
                long ops = 0;
                long wall = 0;
                long cpuNs = 0;
                for (long[][][] thread : figures) {
                    ops += thread[r + 1][path][0];
                    wall += thread[r + 1][path][1];
                    cpuNs += thread[r + 1][path][2];
                }
                wallPerOp[path] = (double) wall / ops;
                cpuPerOp[path] = (double) cpuNs / ops;
            }
            cb[r] = wallPerOp[1] / wallPerOp[2];
            ca[r] = wallPerOp[0] / wallPerOp[2];
            cpu[r] = (cpuPerOp[2] - cpuPerOp[1]) / 1e3;
            rawMicros[r] = wallPerOp[0] / 1e3;
        }
        return new Result(cb, ca, cpu, rawMicros);
    }
}
