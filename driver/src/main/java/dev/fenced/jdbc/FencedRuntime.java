package dev.fenced.jdbc;

import dev.fenced.FencingMode;
import dev.fenced.config.FencedConfig;
import dev.fenced.metrics.FencedMetrics;
import dev.fenced.sql.FencingTargets;
import dev.fenced.sql.RewriteCache;
import dev.fenced.sql.RewritePlan;
import dev.fenced.sql.SqlRewriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;

/**
 * Everything the connections of one configuration on one database share: the configuration, what the
 * catalog said, the rewriter and its plan cache. Built at the first connect, then reused.
 */
public final class FencedRuntime {

    private static final System.Logger LOG = System.getLogger("dev.fenced.jdbc");
    private static final ConcurrentHashMap<String, FencedRuntime> RUNTIMES = new ConcurrentHashMap<>();
    /** Observe-mode findings are logged at WARNING this many times per runtime, then at DEBUG. */
    private static final int LOUD_OBSERVATIONS = 20;

    /** How a lost lease's token is named in messages; the lease manager installs the real lookup. */
    private static volatile LongFunction<String> leaseNames = token -> null;

    private final FencedConfig config;
    private final AtomicInteger observations = new AtomicInteger();
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final long refreshNanos;
    /** What the catalog said last, with the cache of plans made from it; replaced whole on refresh. */
    private volatile Snapshot snapshot;

    private record Snapshot(FencingTargets targets, RewriteCache cache, long readAtNanos) {
    }

    private FencedRuntime(FencedConfig config, FencingTargets targets) {
        this.config = config;
        this.refreshNanos = config.catalogRefresh().toNanos();
        this.snapshot = snapshot(targets);
    }

    private Snapshot snapshot(FencingTargets targets) {
        RewriteCache cache = targets.isEmpty() ? null
                : new RewriteCache(new SqlRewriter(targets, config.relativeUpdates(), config.parseTimeout()),
                config.cacheSize());
        return new Snapshot(targets, cache, System.nanoTime());
    }

    private static FencingTargets read(FencedConfig config, Connection connection, boolean lenient) throws SQLException {
        if (config.inactive()) {
            return FencingTargets.of(java.util.List.of());
        }
        return config.checkSchema() ? CatalogInspector.inspect(connection, config.tables(), lenient)
                : FencingTargets.of(config.tables());
    }

    /**
     * Reads the catalog again on {@code connection} (raw) and replaces the plans: after DDL that names a
     * protected table, so a new view, partition or child is fenced from the next statement on.
     */
    void refresh(Connection connection) throws SQLException {
        if (config.inactive() || !config.checkSchema()) {
            return;
        }
        FencingTargets targets = read(config, connection, true);
        Snapshot s = snapshot;
        // A re-read that finds what the last one found keeps the plans: they are decided from the targets
        // and this runtime's configuration alone, so they are still right, and the periodic re-read
        // (fenced.catalogRefresh) does not send every statement back to the parser once a minute.
        snapshot = targets.equals(s.targets()) ? new Snapshot(s.targets(), s.cache(), System.nanoTime()) : snapshot(targets);
    }

    /** A periodic re-read, for DDL run by others; one connection does it while the rest go on. */
    void refreshIfDue(Connection connection) {
        if (System.nanoTime() - snapshot.readAtNanos() < refreshNanos || !refreshing.compareAndSet(false, true)) {
            return;
        }
        try {
            refresh(connection);
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "fenced: could not read the catalog again; keeping what it said"
                    + " before: " + e.getMessage());
            Snapshot s = snapshot;
            snapshot = new Snapshot(s.targets(), s.cache(), System.nanoTime());
        } finally {
            refreshing.set(false);
        }
    }

    /**
     * The runtime for {@code config} on the database {@code key} names, built on first use with
     * {@code connection} (a raw connection to that database) for the catalog check. A failed check is not
     * remembered: the next connect checks again.
     */
    static FencedRuntime forDatabase(String key, FencedConfig config, Connection connection) throws SQLException {
        String id = key + '\u0000' + config.fingerprint();
        FencedRuntime runtime = RUNTIMES.get(id);
        if (runtime != null) {
            return runtime;
        }
        runtime = new FencedRuntime(config, read(config, connection, false));
        FencedRuntime raced = RUNTIMES.putIfAbsent(id, runtime);
        return raced != null ? raced : runtime;
    }

    /** Forgets every runtime, so the next connect reads the catalog again (after DDL, in tests). */
    public static void reset() {
        RUNTIMES.clear();
    }

    public static void installLeaseNames(LongFunction<String> lookup) {
        leaseNames = lookup;
    }

    String leaseName(long token) {
        return leaseNames.apply(token);
    }

    FencedConfig config() {
        return config;
    }

    /** What is protected now (the last catalog read). */
    FencingTargets targets() {
        return snapshot.targets();
    }

    /** The plan for {@code sql}. Cheap for statements that cannot touch a protected table. */
    RewritePlan plan(String sql) {
        RewriteCache cache = snapshot.cache();
        return cache == null ? RewritePlan.PASSTHROUGH : cache.plan(sql);
    }

    /**
     * The plan to run for {@code sql}: a refusal is thrown in enforce mode, and in observe mode counted,
     * logged and turned into a pass-through. Inside {@code Fencing.unfenced} a refused statement runs as
     * written (migrations: DO blocks, TRUNCATE, MERGE); the refused plan is returned, which callers run as
     * a pass-through, and a prepared statement checks again at execute time that it is still unfenced.
     */
    RewritePlan planOrRefuse(String sql) throws SQLException {
        RewritePlan plan = plan(sql);
        if (!plan.isRefused()) {
            return plan;
        }
        if (plan.mode() == FencingMode.ENFORCE) {
            if (TokenResolver.inUnfencedSection()) {
                LOG.log(System.Logger.Level.INFO, "fenced: unfenced section runs as written a statement on {0}"
                        + " that fenced would refuse ({1}): {2}", plan.tables().get(0), plan.refusedConstruct(), sql);
                return plan;
            }
            FencedMetrics.UNSUPPORTED_REFUSED.increment();
            throw plan.refusal();
        }
        FencedMetrics.UNSUPPORTED_OBSERVED.increment();
        observe("fenced (observe): statement on {0} would be refused: {1}: {2}", plan.tables().get(0),
                plan.refusedConstruct(), sql);
        return RewritePlan.PASSTHROUGH;
    }

    /** For a refused plan let through inside {@code Fencing.unfenced}: refuses it now, outside one. */
    void refuseUnlessUnfenced(RewritePlan plan) throws SQLException {
        if (plan.isRefused() && plan.mode() == FencingMode.ENFORCE && !TokenResolver.inUnfencedSection()) {
            FencedMetrics.UNSUPPORTED_REFUSED.increment();
            throw plan.refusal();
        }
    }

    void observedUnfenced(RewritePlan plan, String reason) {
        FencedMetrics.UNFENCED_WRITES_OBSERVED.increment();
        observe("fenced (observe): write to {0} without a token ({1}): {2}", plan.tables().get(0), reason, plan.sql());
    }

    private void observe(String format, Object... args) {
        System.Logger.Level level = observations.incrementAndGet() <= LOUD_OBSERVATIONS
                ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
        LOG.log(level, format, args);
    }
}
