package dev.fenced.bench;

import com.sun.management.ThreadMXBean;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What a protected statement never seen before costs, once the JIT has compiled the parser: each round plans 2,000
 * distinct texts (a literal that changes) and prints wall time, the thread's CPU time and its allocation per text.
 * JMH's short rounds ({@code bench/run --only rewrite}) mostly measure the JIT compiling JSqlParser on this path;
 * this runs long enough for the per-round figure to settle.
 *
 * <pre>java -cp bench/target/fenced-bench.jar dev.fenced.bench.ColdPlanCost [rounds, default 30]</pre>
 */
public final class ColdPlanCost {

    private static final int PER_ROUND = 2_000;

    private ColdPlanCost() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        SqlRewriter rewriter = RewriteBench.newRewriter(java.util.List.of(BenchEnv.PROTECTED));
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long counter = 0;
        for (int round = 1; round <= rounds; round++) {
            long cpu = threads.getCurrentThreadCpuTime();
            long allocated = threads.getCurrentThreadAllocatedBytes();
            long start = System.nanoTime();
            for (int i = 0; i < PER_ROUND; i++) {
                RewritePlan plan = rewriter.plan(
                        "UPDATE " + BenchEnv.PROTECTED + " SET amount = ? WHERE id = ? AND amount <> " + (++counter));
                if (!(plan instanceof RewritePlan.Fenced)) {
                    throw new IllegalStateException("not fenced: " + plan);
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "round %2d: %6.0f µs wall, %6.0f µs CPU, %5.0f KB allocated per new text%n",
                    round,
                    (System.nanoTime() - start) / 1e3 / PER_ROUND,
                    (threads.getCurrentThreadCpuTime() - cpu) / 1e3 / PER_ROUND,
                    (threads.getCurrentThreadAllocatedBytes() - allocated) / 1024.0 / PER_ROUND);
        }
    }
}
