package dev.fenced.internal.sql;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Plans by {@link LiteralShape}: a text that differs from a planned one only in masked literals gets its plan
 * from a {@link ShapeTemplate} instead of the full rewrite. A shape is remembered when its first text is planned
 * (that plan, nothing more); the template is built when a second text of the shape comes, from one extra rewrite
 * of the probe, so a text whose shape never repeats costs nothing more than before. A shape whose template
 * cannot be trusted, and every refusal, goes to the full rewrite every time, so a refusal is always the full
 * rewrite's own.
 *
 * <p>Bounded like the plan cache: at {@code capacity} shapes an arbitrary tenth is dropped (no order kept on a
 * hit; a dropped shape costs one rewrite to learn again).
 */
final class ShapeCache {

    /** A shape seen once: its first text and that text's plan. */
    private record Seen(LiteralShape shape, RewritePlan plan) {}

    /** A shape whose probe gave no template: planned in full every time. */
    private static final Object UNSHAPED = new Object();

    private final int capacity;
    private final ConcurrentHashMap<String, Object> shapes;

    ShapeCache(int capacity) {
        this.capacity = capacity;
        this.shapes = new ConcurrentHashMap<>(Math.min(capacity, 1024));
    }

    /** The plan for the text of {@code shape} from its shape's template, or null when it must be planned in full. */
    @Nullable
    RewritePlan plan(LiteralShape shape, SqlRewriter rewriter) {
        Object entry = shapes.get(shape.key());
        if (entry instanceof ShapeTemplate template) {
            return template.instantiate(shape.literals());
        }
        if (!(entry instanceof Seen seen) || Arrays.equals(seen.shape().literals(), shape.literals())) {
            return null;
        }
        ShapeTemplate template = ShapeTemplate.build(
                seen.shape(), seen.plan(), rewriter.planProbe(seen.shape().probe()));
        shapes.replace(shape.key(), entry, template != null ? template : UNSHAPED);
        return template != null ? template.instantiate(shape.literals()) : null;
    }

    /** Remembers the full rewrite's {@code plan} of the text of {@code shape}, if fenced or passed through. */
    void planned(LiteralShape shape, RewritePlan plan) {
        if (!(plan instanceof RewritePlan.Fenced || plan instanceof RewritePlan.Passthrough) || !plan.cacheable()) {
            return;
        }
        if (shapes.size() >= capacity) {
            RewriteCache.evict(shapes, capacity);
        }
        shapes.putIfAbsent(shape.key(), new Seen(shape, plan));
    }

    int size() {
        return shapes.size();
    }
}
