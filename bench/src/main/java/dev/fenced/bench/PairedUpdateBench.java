package dev.fenced.bench;

import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The two target comparisons of {@link UpdateBench}, paired inside each invocation: one thread runs a block of
 * {@link #BLOCK} UPDATEs on path X, then a block on path Y (the order flips every invocation), and times each
 * block apart: wall time, thread CPU time, allocated bytes. Two blocks a millisecond apart see the same machine,
 * so drift that moves {@link UpdateBench}'s separate rounds by ±10% (even raw against raw) cancels here; what
 * is left is the difference between the paths.
 *
 * <p>{@code cb}: X = (c) fenced on the protected table, Y = (b) raw pgjdbc with the same SQL written by hand.
 * {@code da}: X = (d) fenced on the unprotected table, Y = (a) raw pgjdbc.
 * {@code ce}: X = (c) fenced on the protected table, Y = (e) raw pgjdbc with the article's fencing SQL by hand
 * ({@link BenchEnv#UPDATE_ARTICLE}): the reference. {@code be}: X = (b), Y = (e): the guard's SQL form alone.
 * {@code bq}: X = (b), Y = (b) as it was before the guard was qualified ({@code row > token} for
 * {@code pg_catalog.int8gt(row, token)}): what naming pg_catalog costs the server.
 * {@code aa}: X = Y = (a), the control: whatever it shows away from 1.00 and 0 µs is the method's own bias.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class PairedUpdateBench {

    /** UPDATEs per path per invocation: long enough to dwarf the clock reads, short enough to share the machine. */
    static final int BLOCK = 16;

    private Op fencedProtected;
    private Op rawHandFenced;
    private Op fencedUnprotected;
    private Op raw;
    private Op rawArticle;
    private Op rawHandFencedUnqualified;

    @Setup(Level.Trial)
    public void setUp() {
        BenchEnv env = BenchEnv.get();
        DataSource rawDs = env.raw();
        DataSource fencedDs = env.fenced();
        String handFenced = env.handFencedUpdate();
        fencedProtected = c -> UpdateBench.update(fencedDs, BenchEnv.UPDATE_PROTECTED, c);
        rawHandFenced = c -> UpdateBench.handFencedUpdate(rawDs, handFenced, c);
        fencedUnprotected = c -> UpdateBench.update(fencedDs, BenchEnv.UPDATE_PLAIN, c);
        raw = c -> UpdateBench.update(rawDs, BenchEnv.UPDATE_PLAIN, c);
        rawArticle = c -> UpdateBench.articleUpdate(rawDs, c);
        String unqualified = env.handFencedUpdateUnqualified();
        rawHandFencedUnqualified = c -> UpdateBench.handFencedUpdate(rawDs, unqualified, c);
    }

    /**
     * Per-thread sums for both paths, reported by JMH as secondary results (summed over threads). Public fields
     * are what {@link AuxCounters} reports; they are reset per iteration, as JMH requires.
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Pair {
        private static final com.sun.management.ThreadMXBean THREADS =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

        public long xOps;
        public long xWallNs;
        public long xCpuNs;
        public long xAllocB;
        public long yOps;
        public long yWallNs;
        public long yCpuNs;
        public long yAllocB;
        private boolean xFirst;

        @Setup(Level.Iteration)
        public void reset() {
            xOps = xWallNs = xCpuNs = xAllocB = 0;
            yOps = yWallNs = yCpuNs = yAllocB = 0;
        }

        boolean flip() {
            xFirst = !xFirst;
            return xFirst;
        }

        /** Wall ns, CPU ns, allocated bytes of this thread now. */
        static void read(long[] into) {
            into[0] = System.nanoTime();
            into[1] = THREADS.getCurrentThreadCpuTime();
            into[2] = THREADS.getCurrentThreadAllocatedBytes();
        }
    }

    @FunctionalInterface
    interface Op {
        int run(Client client) throws SQLException;
    }

    private static int block(Op op, Client client, Pair pair, boolean isX) throws SQLException {
        long[] t0 = new long[3];
        long[] t1 = new long[3];
        int rows = 0;
        Pair.read(t0);
        for (int i = 0; i < BLOCK; i++) {
            rows += op.run(client);
        }
        Pair.read(t1);
        if (isX) {
            pair.xOps += BLOCK;
            pair.xWallNs += t1[0] - t0[0];
            pair.xCpuNs += t1[1] - t0[1];
            pair.xAllocB += t1[2] - t0[2];
        } else {
            pair.yOps += BLOCK;
            pair.yWallNs += t1[0] - t0[0];
            pair.yCpuNs += t1[1] - t0[1];
            pair.yAllocB += t1[2] - t0[2];
        }
        return rows;
    }

    /** One paired step: a block on X and a block on Y, in an order flipped each time (InventoryCostBench too). */
    static int paired(Op x, Op y, Client client, Pair pair) throws SQLException {
        if (pair.flip()) {
            return block(x, client, pair, true) + block(y, client, pair, false);
        }
        return block(y, client, pair, false) + block(x, client, pair, true);
    }

    /** X = (c) fenced, protected table; Y = (b) raw pgjdbc, hand-written fenced SQL. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int cb(Client client, Pair pair) throws SQLException {
        return paired(fencedProtected, rawHandFenced, client, pair);
    }

    /** X = (d) fenced, unprotected table; Y = (a) raw pgjdbc. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int da(Client client, Pair pair) throws SQLException {
        return paired(fencedUnprotected, raw, client, pair);
    }

    /** X = (c) fenced, protected table; Y = (e) raw pgjdbc, the article's fencing SQL by hand. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int ce(Client client, Pair pair) throws SQLException {
        return paired(fencedProtected, rawArticle, client, pair);
    }

    /** X = (b) fenced's SQL by hand; Y = (e) the article's SQL by hand: what the guard's form costs. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int be(Client client, Pair pair) throws SQLException {
        return paired(rawHandFenced, rawArticle, client, pair);
    }

    /** X = (b) fenced's SQL by hand; Y = the same with the guard's unqualified {@code >}, as before issue 24. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int bq(Client client, Pair pair) throws SQLException {
        return paired(rawHandFenced, rawHandFencedUnqualified, client, pair);
    }

    /** The control: X = Y = (a) raw pgjdbc. */
    @Benchmark
    @OperationsPerInvocation(2 * BLOCK)
    public int aa(Client client, Pair pair) throws SQLException {
        return paired(raw, raw, client, pair);
    }
}
