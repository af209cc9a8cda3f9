package dev.fenced.bench;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.RewriteCache;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import java.time.Duration;
import java.util.List;
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
 * What deciding a statement costs, without a database: {@link RewriteCache#plan} as the driver calls it for
 * every statement it prepares. The defaults the driver uses (cache of 2,048 plans, 2 s parse deadline).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
public class RewriteBench {

    // Static: in-process rounds (BenchMain) make a new state object per round; the caches live on.
    private static RewriteCache cached;
    private static RewriteCache cold;
    private static RewriteCache twentyTables;
    private static long counter;
    /** More distinct unprotected texts than the pass-through memory has slots: each call finds another's. */
    private static final String[] ROTATING = new String[8192];

    private static int next;

    static {
        for (int i = 0; i < ROTATING.length; i++) {
            ROTATING[i] = "UPDATE " + BenchEnv.PLAIN + " SET amount = ? WHERE id = ? AND " + i + " = " + i;
        }
    }

    /** Twenty protected tables, as a larger application might list them. */
    static final List<String> TWENTY = List.of(
            "orders",
            "order_lines",
            "invoices",
            "payments",
            "refunds",
            "customers",
            "accounts",
            "balances",
            "ledger",
            "shipments",
            "stock",
            "reservations",
            "carts",
            "coupons",
            "prices",
            "subscriptions",
            "totals",
            "settlements",
            "payouts",
            "transfers");

    static RewriteCache newCache() {
        return newCache(List.of(BenchEnv.PROTECTED));
    }

    static RewriteCache newCache(List<String> tables) {
        return new RewriteCache(newRewriter(tables), 2048, new dev.fenced.internal.metrics.Tracker());
    }

    /** The driver's rewriter with {@code tables} protected in enforce mode (2 s parse deadline, as by default). */
    static SqlRewriter newRewriter(List<String> tables) {
        FencingTargets targets = FencingTargets.of(tables.stream()
                .map(t -> new ProtectedTable(TableName.parse(t), BenchEnv.FENCE_COLUMN, FencingMode.ENFORCE))
                .toList());
        return new SqlRewriter(targets, RelativeUpdatePolicy.WARN, Duration.ofSeconds(2));
    }

    @Setup(Level.Trial)
    public void setUp() {
        initCaches();
    }

    private static synchronized void initCaches() {
        if (cached == null) {
            cached = newCache();
            cold = newCache();
            twentyTables = newCache(TWENTY);
        }
        if (!(cached.plan(BenchEnv.UPDATE_PROTECTED) instanceof RewritePlan.Fenced)) {
            throw new IllegalStateException("the benchmark UPDATE is not fenced");
        }
    }

    /** The hot path: the same text again; the pre-filter finds the table name, the map has the plan. */
    @Benchmark
    public RewritePlan a_cachedProtected() {
        return cached.plan(BenchEnv.UPDATE_PROTECTED);
    }

    /** A text that cannot name a protected table, seen before: the pass-through memory answers. */
    @Benchmark
    public RewritePlan b_unprotected() {
        return cached.plan(BenchEnv.UPDATE_PLAIN);
    }

    /** Unprotected texts the memory does not hold (another text is in the slot): the pre-filter scans each. */
    @Benchmark
    public RewritePlan e_unprotectedScanned() {
        return cached.plan(ROTATING[next++ & (ROTATING.length - 1)]);
    }

    /** The same, with twenty tables protected: the one-pass pre-filter looks for all twenty names. */
    @Benchmark
    public RewritePlan d_unprotected20Tables() {
        return twentyTables.plan(ROTATING[next++ & (ROTATING.length - 1)]);
    }

    /** A new text every time (a literal that changes), so every call lexes, parses, rewrites and verifies. */
    @Benchmark
    public RewritePlan c_coldProtected() {
        return cold.plan("UPDATE " + BenchEnv.PROTECTED + " SET amount = ? WHERE id = ? AND amount <> " + (++counter));
    }
}
