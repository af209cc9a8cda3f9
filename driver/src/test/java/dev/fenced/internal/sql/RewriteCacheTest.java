package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.metrics.Tracker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RewriteCacheTest {

    private static RewriteCache cacheFor(String table) {
        return new RewriteCache(
                new SqlRewriter(
                        FencingTargets.of(
                                List.of(new ProtectedTable(TableName.parse(table), "last_token", FencingMode.ENFORCE))),
                        RelativeUpdatePolicy.ALLOW,
                        Duration.ofSeconds(2)),
                64,
                new Tracker());
    }

    @Test
    void aRememberedClearTextNeverCoversAProtectedTextInTheSameSlot() {
        RewriteCache cache = cacheFor("totals");
        String fenced = "UPDATE totals SET amount = 1 WHERE id = 7";
        // an unprotected text that lands in the protected text's slot of the pass-through memory
        String sameSlot = null;
        for (int i = 0; sameSlot == null; i++) {
            String candidate = "UPDATE other SET amount = " + i + " WHERE id = 7";
            if ((candidate.hashCode() & 511) == (fenced.hashCode() & 511)) {
                sameSlot = candidate;
            }
        }
        assertSame(RewritePlan.Passthrough.PASSTHROUGH, cache.plan(sameSlot));
        assertSame(RewritePlan.Passthrough.PASSTHROUGH, cache.plan(sameSlot), "remembered");
        assertTrue(
                cache.plan(fenced) instanceof RewritePlan.Fenced,
                "the slot holds another text: the protected one is still fenced");
        // "Aa" and "BB" have equal hash codes, so these two texts do too: an equal hash is not an equal text
        RewriteCache bb = cacheFor("bb");
        String clear = "UPDATE Aa SET x = 1";
        String protectedText = "UPDATE BB SET x = 1";
        assertEquals(clear.hashCode(), protectedText.hashCode());
        assertSame(RewritePlan.Passthrough.PASSTHROUGH, bb.plan(clear));
        assertTrue(bb.plan(protectedText) instanceof RewritePlan.Fenced);
    }

    @Test
    void aCopyOfARememberedTextIsStillPassedThroughAndNothingIsParsed() {
        RewriteCache cache = cacheFor("totals");
        String sql = "UPDATE other SET amount = ? WHERE id = ?";
        assertSame(RewritePlan.Passthrough.PASSTHROUGH, cache.plan(sql));
        assertSame(RewritePlan.Passthrough.PASSTHROUGH, cache.plan(new String(sql.toCharArray())));
        assertEquals(0, cache.size(), "unprotected texts never enter the plan cache");
    }

    @Test
    void theMemoryBelongsToOneSetOfProtectedTables() {
        String sql = "UPDATE other SET amount = 1";
        assertSame(RewritePlan.Passthrough.PASSTHROUGH, cacheFor("totals").plan(sql));
        assertTrue(
                cacheFor("other").plan(sql) instanceof RewritePlan.Fenced, "a cache for other targets decides afresh");
    }
}
