package dev.fenced.internal.sql;

import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.metrics.Tracker;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans by SQL text, bounded. Reads are a lock-free map lookup; when full, an arbitrary tenth is
 * dropped (cheaper than LRU bookkeeping on every hit, and a miss only costs one parse). Only texts that
 * passed the pre-filter get here, so unprotected statements never fill it.
 *
 * <p>The pre-filter's "no" is remembered too, in a small table of texts by hash slot: an unprotected statement
 * run again (the usual case: the same constant string) then costs a slot read and a reference compare instead
 * of a scan of its text (bench: 55 ns scan for a 46-character UPDATE, ~80 ns with 20 protected tables). Safe
 * because a cache belongs to one immutable {@link FencingTargets}: when the protected set changes, the driver
 * builds a new cache, and this memory goes with the old one. A hit needs the same text ({@code equals}), never
 * just the same slot.
 */
public final class RewriteCache {

    private final SqlRewriter rewriter;
    private final int capacity;
    private final Tracker tracker;
    private final ConcurrentHashMap<String, RewritePlan> plans;
    /** The texts for a NULL token of plans that {@link RewritePlan#tokenRequired() require} one (rarely used). */
    private final ConcurrentHashMap<String, RewritePlan> nullTokenPlans = new ConcurrentHashMap<>();
    /** Texts the pre-filter found clear of every protected name (and of DO blocks), per rewrite cache. */
    private final CleanTexts clear = new CleanTexts();
    /** Plans by text with its literals masked, for texts that differ from a planned one only in literals. */
    private final ShapeCache shapes;

    /** {@code tracker} counts the parses (misses), the hits and the relative updates planned. */
    public RewriteCache(SqlRewriter rewriter, int capacity, Tracker tracker) {
        this.rewriter = rewriter;
        this.capacity = capacity;
        this.tracker = tracker;
        this.plans = new ConcurrentHashMap<>(Math.min(capacity, 1024));
        this.shapes = new ShapeCache(capacity);
    }

    /** The plan for {@code sql}: pass-through without parsing when nothing protected can be in it. */
    public RewritePlan plan(String sql) {
        if (clear.contains(sql)) {
            return RewritePlan.Passthrough.PASSTHROUGH;
        }
        // a planned text is looked up before the pre-filter scans it: a protected statement run again
        // costs a map lookup, not a scan of its text for every protected name as well
        RewritePlan plan = plans.get(sql);
        if (plan != null) {
            tracker.increment(Counter.REWRITES_CACHED);
            return plan;
        }
        if (!rewriter.needsPlanning(sql)) {
            clear.add(sql);
            return RewritePlan.Passthrough.PASSTHROUGH;
        }
        // only a text not seen before gets here: its shape (literals masked) is looked up before a full rewrite
        LiteralShape shape = LiteralShape.of(sql);
        if (shape != null) {
            RewritePlan shaped = shapes.plan(shape, rewriter);
            if (shaped != null) {
                tracker.increment(Counter.REWRITES_CACHED);
                if (shaped instanceof RewritePlan.Fenced fenced && fenced.relativeUpdate()) {
                    tracker.increment(Counter.RELATIVE_UPDATES);
                    rewriter.relativeUpdatePlanned(fenced.table(), sql); // warned of as its full rewrite would
                }
                return remember(plans, sql, shaped);
            }
        }
        RewritePlan full = parsed(rewriter.plan(sql));
        if (shape != null) {
            shapes.planned(shape, full);
        }
        return remember(plans, sql, full);
    }

    /** The plan to run {@code sql} with a NULL token: {@link #plan}'s unless that one requires a token. */
    public RewritePlan planForNullToken(String sql) {
        RewritePlan plan = plan(sql);
        if (!(plan instanceof RewritePlan.Fenced fenced) || !fenced.tokenRequired()) {
            return plan;
        }
        RewritePlan variant = nullTokenPlans.get(sql);
        return variant != null ? variant : remember(nullTokenPlans, sql, parsed(rewriter.planForNullToken(sql)));
    }

    /** Counts a parse (only texts that {@link SqlRewriter#needsPlanning need planning} get here). */
    private RewritePlan parsed(RewritePlan plan) {
        tracker.increment(Counter.REWRITES_PARSED);
        if (plan instanceof RewritePlan.Fenced fenced && fenced.relativeUpdate()) {
            tracker.increment(Counter.RELATIVE_UPDATES);
        }
        return plan;
    }

    private RewritePlan remember(ConcurrentHashMap<String, RewritePlan> map, String sql, RewritePlan plan) {
        if (!plan.cacheable()) {
            return plan; // a parse that ran out of time is tried again next time
        }
        if (map.size() >= capacity) {
            evict(map, capacity);
        }
        RewritePlan raced = map.putIfAbsent(sql, plan);
        return raced != null ? raced : plan;
    }

    public int size() {
        return plans.size();
    }

    /** Shapes kept (see {@link ShapeCache}). */
    public int shapeCount() {
        return shapes.size();
    }

    /** Drops an arbitrary tenth of {@code map}: no order is kept on a hit, so a hit costs only the lookup. */
    static void evict(ConcurrentHashMap<String, ?> map, int capacity) {
        int drop = Math.max(1, capacity / 10);
        Iterator<String> it = map.keySet().iterator();
        while (drop-- > 0 && it.hasNext()) {
            it.next();
            it.remove();
        }
    }
}
