package dev.fenced.sql;

import dev.fenced.metrics.FencedMetrics;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans by SQL text, bounded. Reads are a lock-free map lookup; when full, an arbitrary tenth is
 * dropped (cheaper than LRU bookkeeping on every hit, and a miss only costs one parse). Only texts that
 * passed the pre-filter get here, so unprotected statements never fill it.
 */
public final class RewriteCache {

    private final SqlRewriter rewriter;
    private final int capacity;
    private final ConcurrentHashMap<String, RewritePlan> plans;

    public RewriteCache(SqlRewriter rewriter, int capacity) {
        this.rewriter = rewriter;
        this.capacity = capacity;
        this.plans = new ConcurrentHashMap<>(Math.min(capacity, 1024));
    }

    /** The plan for {@code sql}: pass-through without parsing when nothing protected can be in it. */
    public RewritePlan plan(String sql) {
        if (!rewriter.targets().mayMention(sql)) {
            return RewritePlan.PASSTHROUGH;
        }
        RewritePlan plan = plans.get(sql);
        if (plan != null) {
            FencedMetrics.REWRITES_CACHED.increment();
            return plan;
        }
        plan = rewriter.plan(sql);
        if (!plan.cacheable()) {
            return plan; // a parse that ran out of time is tried again next time
        }
        if (plans.size() >= capacity) {
            evict();
        }
        RewritePlan raced = plans.putIfAbsent(sql, plan);
        return raced != null ? raced : plan;
    }

    public int size() {
        return plans.size();
    }

    private void evict() {
        int drop = Math.max(1, capacity / 10);
        Iterator<String> it = plans.keySet().iterator();
        while (drop-- > 0 && it.hasNext()) {
            it.next();
            it.remove();
        }
    }
}
