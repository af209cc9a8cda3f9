package dev.fenced.bench;

import com.sun.management.ThreadMXBean;
import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.metrics.Tracker;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.RewriteCache;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import dev.fenced.internal.sql.TableShape;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * What a protected statement fenced has not planned before costs, once the JIT has compiled the parser, and what
 * the plan caches hold. Each round plans, per kind of text, a batch of texts never planned before and prints the
 * thread's CPU time and its allocation per text; the summary gives the median and range over the rounds after the
 * first third. Before the first round, {@code warm-up} rounds (default 40) run unrecorded: the code only one kind
 * runs (a MERGE's skeleton, an upsert's conflict clause) is called 200 times a round, and C2 compiles a method only
 * after some 5,000 calls, so without them rounds 5-12 measured those kinds in C1's code (a MERGE at 75 µs, 35 µs
 * compiled). Kinds:
 *
 * <ul>
 *   <li>{@code full}: {@link SqlRewriter#plan} of a new text: the whole rewrite, what every new text cost before the
 *       shape cache (a plan-cache miss was this plus a map insert);
 *   <li>{@code full DELETE}: the same for a new {@code DELETE ... WHERE}; {@code full DELETE, tombstones}: of a table
 *       that keeps tombstones (the token's hand-over added to the condition);
 *   <li>{@code full upsert}: the same for a new {@code INSERT ... ON CONFLICT (id) DO UPDATE SET ...};
 *   <li>{@code full MERGE}: the same for a new {@code MERGE ... USING (VALUES ...) ... WHEN MATCHED THEN UPDATE ...
 *       WHEN NOT MATCHED THEN INSERT ...};
 *   <li>{@code new shape}: {@link RewriteCache#plan} of a text whose shape (literals masked) is new too;
 *   <li>{@code 2nd of shape}: the second text of a shape, which builds the shape's template (one probe rewrite);
 *   <li>{@code literals vary}: a new text of a known shape (another id, amount and note);
 *   <li>{@code seen}: a text planned before (the hot path: an exact-text lookup);
 *   <li>{@code full subquery}: as {@code full}, for a new {@code UPDATE ... WHERE id IN (SELECT ...)};
 *   <li>{@code full WITH UPDATE}: as {@code full}, for a new {@code WITH s AS (SELECT ...) UPDATE ... WHERE id IN
 *       (SELECT id FROM s)};
 *   <li>{@code full INSERT SELECT}: as {@code full}, for a new {@code INSERT ... SELECT ... FROM other WHERE ...};
 *   <li>{@code full UPDATE FROM}: as {@code full}, for a new {@code UPDATE ... SET amount = o.amount FROM other o
 *       WHERE ...}; {@code full DELETE USING}: for a new {@code DELETE FROM ... USING other o WHERE ...}.
 * </ul>
 *
 * Then a curve: {@code distinct} texts (1,000 to 100,000) planned through one cache of the driver's default size
 * (2,048), literal-varying over 50 shapes and all of new shapes, with the CPU per new text in each step and the heap
 * the cache retains (measured after full GCs, as the difference against the same heap without the cache).
 *
 * <pre>
 * java -cp bench/target/fenced-bench.jar dev.fenced.bench.ColdPlanCost [rounds, default 30] [curve: yes|no]
 *     [warm-up rounds, default 40]
 * </pre>
 */
public final class ColdPlanCost {

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final String T = BenchEnv.PROTECTED;

    /** Unique across the run, so no text repeats between kinds or rounds. */
    private static long counter;

    private ColdPlanCost() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        boolean curve = args.length < 2 || !args[1].equals("no");
        int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        System.out.printf(
                Locale.ROOT,
                "Java %s, %d CPUs, load average %s%n",
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(),
                ProcessCpu.loadAverage());
        SqlRewriter rewriter = RewriteBench.newRewriter(List.of(T));
        SqlRewriter tombstoned = tombstonedRewriter();
        String[] kinds = {
            "full",
            "full DELETE",
            "full DELETE, tombstones",
            "full upsert",
            "new shape",
            "2nd of shape",
            "literals vary",
            "seen",
            "full subquery",
            "full MERGE",
            "full WITH UPDATE",
            "full INSERT SELECT",
            "full UPDATE FROM",
            "full DELETE USING"
        };
        // unrecorded rounds first: the code only one kind runs (MergeSkeleton, MergeByPosition, ConflictClause ...)
        // is planned 200 times a round, so C2 compiles it only after some 25 rounds (its 5,000th call); rounds 5-12
        // of a 12-round run measured a MERGE in C1's code, twice the time of the compiled path
        long warmStart = System.nanoTime();
        double[][] scratch = new double[kinds.length][1];
        for (int round = 0; round < warmUp; round++) {
            round(rewriter, tombstoned, scratch, new double[kinds.length][1], 0);
        }
        System.out.printf(
                Locale.ROOT,
                "warm-up: %d unrecorded rounds (%,d texts of each full kind) in %.1f s%n",
                warmUp,
                warmUp * 200L,
                (System.nanoTime() - warmStart) / 1e9);
        double[][] cpu = new double[kinds.length][rounds];
        double[][] alloc = new double[kinds.length][rounds];
        for (int round = 0; round < rounds; round++) {
            round(rewriter, tombstoned, cpu, alloc, round);
            System.out.printf(Locale.ROOT, "round %2d:", round + 1);
            for (int k = 0; k < kinds.length; k++) {
                System.out.printf(
                        Locale.ROOT, "  %s %s µs %s KB", kinds[k], fmt(cpu[k][round]), fmt(alloc[k][round] / 1024));
            }
            System.out.println();
        }
        int from = rounds / 3;
        System.out.printf(
                Locale.ROOT,
                "%nper text, rounds %d-%d: median [min-max]; load average now %s%n",
                from + 1,
                rounds,
                ProcessCpu.loadAverage());
        System.out.println("| text | CPU µs | allocated KB |");
        System.out.println("|---|---|---|");
        for (int k = 0; k < kinds.length; k++) {
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %s |%n",
                    kinds[k],
                    summary(Arrays.copyOfRange(cpu[k], from, rounds), 1),
                    summary(Arrays.copyOfRange(alloc[k], from, rounds), 1024));
        }
        if (curve) {
            curve(rewriter, "literals vary (50 shapes)", i -> literalText(i % 50, ++counter));
            curve(rewriter, "new shapes", i -> newShape(++counter));
        }
    }

    /** One round: every kind's texts planned and measured into {@code cpu[kind][round]}, {@code alloc[kind][round]}. */
    private static void round(
            SqlRewriter rewriter, SqlRewriter tombstoned, double[][] cpu, double[][] alloc, int round) {
        RewriteCache cache = new RewriteCache(rewriter, 2048, new Tracker());
        // full: the rewrite alone
        measure(cpu[0], alloc[0], round, 200, i -> {
            RewritePlan p = rewriter.plan(newShape(++counter));
            return p;
        });
        measure(cpu[1], alloc[1], round, 200, i -> rewriter.plan(newDelete(++counter)));
        measure(cpu[2], alloc[2], round, 200, i -> tombstoned.plan(newDelete(++counter)));
        measure(cpu[3], alloc[3], round, 200, i -> rewriter.plan(newUpsert(++counter)));
        // new shape through the cache; each is then the first text of its shape
        long firstShape = counter + 1;
        measure(cpu[4], alloc[4], round, 200, i -> cache.plan(newShape(++counter)));
        // the second text of each of those shapes: builds the template
        measure(cpu[5], alloc[5], round, 200, i -> cache.plan(newShape(firstShape + i, 7_000_000 + i)));
        // literal-varying texts of a shape seen before
        for (int shape = 0; shape < 10; shape++) { // each shape's first text and template, not measured
            cache.plan(literalText(shape, 1));
            cache.plan(literalText(shape, 2));
        }
        measure(cpu[6], alloc[6], round, 20_000, i -> cache.plan(literalText(i % 10, ++counter)));
        // the hot path: a text seen before
        String seen = literalText(0, 1);
        measure(cpu[7], alloc[7], round, 200_000, i -> cache.plan(seen));
        measure(cpu[8], alloc[8], round, 200, i -> rewriter.plan(newSubquery(++counter)));
        measure(cpu[9], alloc[9], round, 200, i -> rewriter.plan(newMerge(++counter)));
        measure(cpu[10], alloc[10], round, 200, i -> rewriter.plan(newWithUpdate(++counter)));
        measure(cpu[11], alloc[11], round, 200, i -> rewriter.plan(newInsertSelect(++counter)));
        measure(cpu[12], alloc[12], round, 200, i -> rewriter.plan(newUpdateFrom(++counter)));
        measure(cpu[13], alloc[13], round, 200, i -> rewriter.plan(newDeleteUsing(++counter)));
    }

    /** A text of a shape of its own: the shape key holds the column name {@code c<n>}. */
    private static String newShape(long n) {
        return newShape(n, n);
    }

    private static String newShape(long shape, long literal) {
        return "UPDATE " + T + " SET amount = ? WHERE id = ? AND c" + shape + " <> " + literal;
    }

    /** An UPDATE of a shape of its own whose WHERE holds a subquery on another table. */
    private static String newSubquery(long n) {
        return "UPDATE " + T + " SET amount = ? WHERE id IN (SELECT id FROM other WHERE c" + n + " <> " + n + ")";
    }

    /** An UPDATE of a shape of its own after a WITH of a read-only query on another table. */
    private static String newWithUpdate(long n) {
        return "WITH s AS (SELECT id FROM other WHERE c" + n + " <> " + n + ") UPDATE " + T
                + " SET amount = ? WHERE id IN (SELECT id FROM s)";
    }

    /** An INSERT of a shape of its own whose source is a query on another table. */
    private static String newInsertSelect(long n) {
        return "INSERT INTO " + T + " (id, amount, c" + n + ") SELECT id, amount, c" + n + " FROM other WHERE c" + n
                + " <> " + n;
    }

    /** An UPDATE ... FROM of a shape of its own: the new value read from the joined row. */
    private static String newUpdateFrom(long n) {
        return "UPDATE " + T + " SET amount = o.amount FROM other o WHERE " + T + ".id = o.id AND o.c" + n + " <> " + n;
    }

    /** A DELETE ... USING of a shape of its own. */
    private static String newDeleteUsing(long n) {
        return "DELETE FROM " + T + " USING other o WHERE " + T + ".id = o.id AND o.c" + n + " <> " + n;
    }

    /** A DELETE of a shape of its own. */
    private static String newDelete(long n) {
        return "DELETE FROM " + T + " WHERE id = ? AND c" + n + " <> " + n;
    }

    /** An upsert of a shape of its own: DO UPDATE sets the new row's values, the guard joins its SET list. */
    private static String newUpsert(long n) {
        return "INSERT INTO " + T + " (id, amount, c" + n + ") VALUES (?, ?, " + n
                + ") ON CONFLICT (id) DO UPDATE SET amount = excluded.amount, c" + n + " = excluded.c" + n;
    }

    /**
     * A MERGE of a shape of its own, as an application upserts with it: the matched row takes the source's values,
     * a new key is inserted.
     */
    private static String newMerge(long n) {
        return "MERGE INTO " + T + " AS t USING (VALUES (?, ?)) AS s (id, amount) ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET amount = s.amount, c" + n + " = " + n
                + " WHEN NOT MATCHED THEN INSERT (id, amount, c" + n + ") VALUES (s.id, s.amount, " + n + ")";
    }

    /** The protected table as a catalog read with tombstones shows it: a primary key, the tombstone table there. */
    private static SqlRewriter tombstonedRewriter() {
        List<ProtectedTable> tables =
                List.of(new ProtectedTable(TableName.parse(T), BenchEnv.FENCE_COLUMN, FencingMode.ENFORCE));
        FencingTargets targets = FencingTargets.modelled(
                tables,
                Map.of(),
                Set.of(),
                Map.of(TableName.parse(T), new TableShape(List.of("id", BenchEnv.FENCE_COLUMN), List.of("id"), T)),
                TableName.parse("fenced_tombstone"));
        return new SqlRewriter(targets, RelativeUpdatePolicy.WARN, Duration.ofSeconds(2));
    }

    /** One of a few shapes (the column set), its literals from {@code n}. */
    private static String literalText(int shape, long n) {
        return "UPDATE " + T + " SET amount = " + (n % 100_000) + ".25, note = 'order " + n + "' WHERE id = " + n
                + " AND k" + shape + " = 'x'";
    }

    private static void measure(double[] cpu, double[] alloc, int round, int texts, IntFunction<RewritePlan> plan) {
        long c = THREADS.getCurrentThreadCpuTime();
        long a = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < texts; i++) {
            if (!(plan.apply(i) instanceof RewritePlan.Fenced)) {
                throw new IllegalStateException("not fenced");
            }
        }
        cpu[round] = (THREADS.getCurrentThreadCpuTime() - c) / 1e3 / texts;
        alloc[round] = (double) (THREADS.getCurrentThreadAllocatedBytes() - a) / texts;
    }

    /** Texts from {@code text} planned through one cache of the default size: CPU per step and retained heap. */
    private static void curve(SqlRewriter rewriter, String label, IntFunction<String> text) {
        int[] steps = {1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000};
        System.out.printf(Locale.ROOT, "%ncurve, %s: cache of 2,048 plans and 2,048 shapes%n", label);
        System.out.println("| distinct texts | CPU µs per new text in the step | retained KB | plans | shapes |");
        System.out.println("|---|---|---|---|---|");
        long base = retainedHeap();
        RewriteCache cache = new RewriteCache(rewriter, 2048, new Tracker());
        int done = 0;
        for (int step : steps) {
            long c = THREADS.getCurrentThreadCpuTime();
            for (int i = done; i < step; i++) {
                cache.plan(text.apply(i));
            }
            double perText = (THREADS.getCurrentThreadCpuTime() - c) / 1e3 / (step - done);
            done = step;
            long retained = retainedHeap() - base;
            System.out.printf(
                    Locale.ROOT,
                    "| %,d | %s | %,d | %,d | %,d |%n",
                    step,
                    fmt(perText),
                    retained / 1024,
                    cache.size(),
                    cache.shapeCount());
        }
        if (cache.size() < 0) {
            System.out.println(); // keeps the cache reachable until the last measurement
        }
    }

    private static long retainedHeap() {
        var memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    /** {@code median [min-max]} of {@code values / unit}. */
    static String summary(double[] values, double unit) {
        double[] v = values.clone();
        Arrays.sort(v);
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return fmt(median / unit) + " [" + fmt(v[0] / unit) + "-" + fmt(v[v.length - 1] / unit) + "]";
    }

    /** Three significant figures or so: {@code 830}, {@code 73.6}, {@code 2.62}. */
    static String fmt(double x) {
        return x >= 100
                ? String.format(Locale.ROOT, "%.0f", x)
                : x >= 10 ? String.format(Locale.ROOT, "%.1f", x) : String.format(Locale.ROOT, "%.2f", x);
    }
}
