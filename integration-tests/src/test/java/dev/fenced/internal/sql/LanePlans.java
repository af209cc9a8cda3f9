package dev.fenced.internal.sql;

import dev.fenced.internal.config.RelativeUpdatePolicy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * For the integration tests: the plan the rewriter makes of a text, and whether {@link SkeletonFirst}'s lane made it
 * before the parser was asked ({@link SqlRewriter#skeletonFirstPlans}, package-private).
 */
public final class LanePlans {

    private LanePlans() {}

    /** The plan of {@code sql} by the lane, or null when the lane declined it (the parser's path planned it). */
    public static RewritePlan.@Nullable Fenced plannedFirst(FencingTargets targets, String sql) {
        SqlRewriter rewriter = new SqlRewriter(targets, RelativeUpdatePolicy.WARN, Duration.ofSeconds(5));
        RewritePlan plan = rewriter.plan(sql);
        return rewriter.skeletonFirstPlans() == 1 && plan instanceof RewritePlan.Fenced f ? f : null;
    }
}
