package dev.fenced.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.WriterInventory;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * What the writer inventory costs, paired block by block as {@link PairedUpdateBench} pairs its paths (a block
 * of {@link #BLOCK} UPDATEs of the protected table on path X, then one on Y, the order flipped every invocation,
 * each block timed apart), so machine drift cancels and what is left is the difference between the paths.
 *
 * <p>{@code oe}: X = a write with a token in observe mode (inventory on), Y = the same write in enforce mode: a
 * write with a token never reaches the inventory, so the two should cost the same.
 * {@code unfenced}: X = a write without a token in observe mode with the inventory on, Y = the same with
 * {@code fenced.observe.inventory=false}: what recording an observed write adds (a memo lookup and a count; the
 * stack walked for the first 16 writes of a shape and one in 64 after). {@code ee}: the control, X = Y = the
 * enforce-mode write.
 *
 * <p>One command: {@code bench/inventory-cost [--quick] [--rounds N] [--round-ms MS] [--jdbc-url URL]}; it
 * prints, per pair, X and Y in µs per UPDATE (wall and client CPU) and their difference, per round and median.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class InventoryCostBench {

    static final int BLOCK = PairedUpdateBench.BLOCK; // the blocks are PairedUpdateBench.paired's

    private HikariDataSource observe;
    private HikariDataSource observeNoInventory;
    private PairedUpdateBench.Op observeWrite;
    private PairedUpdateBench.Op enforceWrite;
    private PairedUpdateBench.Op observedInventoryOn;
    private PairedUpdateBench.Op observedInventoryOff;

    @Setup(Level.Trial)
    public void setUp() {
        BenchEnv env = BenchEnv.get();
        String base = "jdbc:fenced:" + env.rawUrl().substring("jdbc:".length())
                + (env.rawUrl().indexOf('?') < 0 ? '?' : '&') + "fenced.tables=" + BenchEnv.PROTECTED
                + "&fenced.mode=observe";
        observe = pool("observe", base);
        observeNoInventory = pool("observe-no-inventory", base + "&fenced.observe.inventory=false");
        DataSource enforce = env.fenced();
        observeWrite = c -> UpdateBench.update(observe, BenchEnv.UPDATE_PROTECTED, c);
        enforceWrite = c -> UpdateBench.update(enforce, BenchEnv.UPDATE_PROTECTED, c);
        observedInventoryOn = c -> UpdateBench.update(observe, BenchEnv.UPDATE_PROTECTED, c);
        observedInventoryOff = c -> UpdateBench.update(observeNoInventory, BenchEnv.UPDATE_PROTECTED, c);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        observe.close();
        observeNoInventory.close();
    }

    private static HikariDataSource pool(String name, String url) {
        HikariConfig c = new HikariConfig();
        c.setPoolName("bench-" + name);
        c.setJdbcUrl(url);
        c.setDriverClassName("dev.fenced.FencedDriver");
        c.setMaximumPoolSize(BenchEnv.POOL_SIZE);
        c.setMinimumIdle(BenchEnv.POOL_SIZE);
        return new HikariDataSource(c);
    }

    /**
     * A benchmark thread with no token bound (unlike {@link Client}, which binds one for the trial): its writes
     * to the protected table are the unfenced ones observe mode lets through. Its own slice of rows, as Client's.
     */
    @State(Scope.Thread)
    public static class Unbound extends Client {
        private int base;
        private int span;
        private long amount;
        private SplittableRandom random;

        @Override
        @Setup(Level.Trial)
        public void setUp(ThreadParams thread) {
            span = BenchEnv.ROWS / thread.getThreadCount();
            base = 1 + thread.getThreadIndex() * span;
            random = new SplittableRandom(17L * thread.getThreadIndex() + System.nanoTime());
        }

        @Override
        @TearDown(Level.Trial)
        public void tearDown() {
            // nothing bound
        }

        @Override
        public int id() {
            return base + random.nextInt(span);
        }

        @Override
        public long amount() {
            return ++amount;
        }
    }

    /** X = a token write in observe mode; Y = the same in enforce mode. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int oe(Client client, PairedUpdateBench.Pair pair) throws SQLException {
        return PairedUpdateBench.paired(observeWrite, enforceWrite, client, pair);
    }

    /** The control: X = Y = a token write in enforce mode; what it shows away from 0 is the method's own bias. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int ee(Client client, PairedUpdateBench.Pair pair) throws SQLException {
        return PairedUpdateBench.paired(enforceWrite, enforceWrite, client, pair);
    }

    /** X = a write without a token in observe mode, inventory on; Y = the same, inventory off. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int unfenced(Unbound client, PairedUpdateBench.Pair pair) throws SQLException {
        return PairedUpdateBench.paired(observedInventoryOn, observedInventoryOff, client, pair);
    }

    // ---- the one command

    /** One round of one pair: µs per UPDATE on X and Y, wall and client CPU. */
    record Round(double xWall, double yWall, double xCpu, double yCpu) {}

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        int rounds = -1;
        int roundMs = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i));
                case "--round-ms" -> roundMs = Integer.parseInt(value(args, ++i));
                case "--jdbc-url" -> BenchEnv.useServer(value(args, ++i));
                case "-h", "--help" -> {
                    System.out.println(
                            "usage: bench/inventory-cost [--quick] [--rounds N] [--round-ms MS]" + " [--jdbc-url URL]");
                    return;
                }
                default -> {
                    System.err.println("inventory-cost: unknown argument " + args[i] + " (--help)");
                    System.exit(2);
                }
            }
        }
        rounds = rounds > 0 ? rounds : quick ? 3 : 12;
        roundMs = roundMs > 0 ? roundMs : quick ? 500 : 1500;
        try {
            BenchEnv env = BenchEnv.get();
            System.out.println("Writer inventory cost, paired (" + BLOCK + " UPDATEs on X, then " + BLOCK + " on Y,"
                    + " order flipped each time): pool of 4, 2 client threads, " + rounds + " rounds of " + roundMs
                    + " ms after 1 warm-up round; " + env.serverDescription());
            for (String[] pair : List.of(
                    new String[] {"oe", "token write: observe (X) vs enforce (Y)"},
                    new String[] {"unfenced", "write without a token, observe: inventory on (X) vs off (Y)"},
                    new String[] {"ee", "control: token write in enforce mode (X) vs itself (Y)"})) {
                run(pair[0], 1, roundMs);
                List<Round> measured = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    measured.add(run(pair[0], 1, roundMs));
                }
                report(pair[0], pair[1], measured);
            }
            System.out.println("inventory entries after the run: "
                    + WriterInventory.writers().size() + " (one shape, its call site), dropped "
                    + WriterInventory.dropped());
        } finally {
            BenchEnv.shutdown();
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            System.err.println("inventory-cost: " + args[i - 1] + " needs a value");
            System.exit(2);
        }
        return args[i];
    }

    private static Round run(String method, int iterations, int ms) throws RunnerException {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                        .include("^" + Pattern.quote(InventoryCostBench.class.getName() + "." + method) + "$")
                        .forks(0)
                        .warmupIterations(0)
                        .measurementIterations(iterations)
                        .measurementTime(TimeValue.milliseconds(ms))
                        .shouldFailOnError(true)
                        .verbosity(VerboseMode.SILENT)
                        .build())
                .run();
        Map<String, ?> s = results.iterator().next().getSecondaryResults();
        double xOps = aux(s, "xOps");
        double yOps = aux(s, "yOps");
        return new Round(
                aux(s, "xWallNs") / xOps / 1000,
                aux(s, "yWallNs") / yOps / 1000,
                aux(s, "xCpuNs") / xOps / 1000,
                aux(s, "yCpuNs") / yOps / 1000);
    }

    private static double aux(Map<String, ?> s, String name) {
        for (Map.Entry<String, ?> e : s.entrySet()) {
            if (e.getKey().endsWith(name)) {
                return ((Result<?>) e.getValue()).getScore();
            }
        }
        throw new IllegalStateException("no " + name + " in " + s.keySet());
    }

    private static void report(String id, String title, List<Round> rounds) {
        System.out.println();
        System.out.println(id + ": " + title);
        System.out.println("  round   X wall µs   Y wall µs   X-Y wall µs   X cpu µs   Y cpu µs   X-Y cpu µs");
        for (int i = 0; i < rounds.size(); i++) {
            Round r = rounds.get(i);
            System.out.printf(
                    "  %5d   %9.2f   %9.2f   %+11.2f   %8.2f   %8.2f   %+10.2f%n",
                    i + 1, r.xWall(), r.yWall(), r.xWall() - r.yWall(), r.xCpu(), r.yCpu(), r.xCpu() - r.yCpu());
        }
        System.out.printf(
                "  median  %9.2f   %9.2f   %+11.2f   %8.2f   %8.2f   %+10.2f%n",
                median(rounds, Round::xWall),
                median(rounds, Round::yWall),
                median(rounds, r -> r.xWall() - r.yWall()),
                median(rounds, Round::xCpu),
                median(rounds, Round::yCpu),
                median(rounds, r -> r.xCpu() - r.yCpu()));
    }

    private static double median(List<Round> rounds, java.util.function.ToDoubleFunction<Round> f) {
        double[] v = rounds.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
