package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A fenced DELETE of a table with a primary key records its tombstones in the same statement. */
class TombstoneRewriteTest {

    static final ProtectedTable TOTALS =
            new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE);
    static final ProtectedTable LOOSE = new ProtectedTable(TableName.parse("loose"), "last_token", FencingMode.ENFORCE);

    static SqlRewriter rewriter(Map<TableName, TableShape> shapes) {
        return new SqlRewriter(
                FencingTargets.modelled(
                        List.of(TOTALS, LOOSE), Map.of(), Set.of(), shapes, TableName.parse("fenced_tombstone")),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(2));
    }

    static final Map<TableName, TableShape> SHAPES = Map.of(
            TOTALS.name(),
                    new TableShape(
                            List.of("restaurant_id", "amount", "last_token"), List.of("restaurant_id"), "totals"),
            LOOSE.name(), new TableShape(List.of("a", "last_token"), List.of(), null));

    @Test
    void aDeleteRecordsItsTombstonesInTheSameStatement() {
        RewritePlan.Fenced p = assertInstanceOf(
                RewritePlan.Fenced.class,
                rewriter(SHAPES).plan("DELETE FROM totals t USING r WHERE t.restaurant_id = r.id AND r.x = ?"));
        assertTrue(
                p.sql()
                        .startsWith(
                                "WITH fenced_tombstones_1 AS (INSERT INTO fenced_tombstone AS fenced_tomb"
                                        + " (relation, key, token) SELECT DISTINCT 'totals', fenced_tombstone_key(t.*, 'restaurant_id'), CAST(? AS bigint)"
                                        + " FROM totals t, r WHERE (t.restaurant_id = r.id AND r.x = ?) AND CAST(? AS bigint) IS NOT NULL"),
                p.sql());
        assertTrue(
                p.sql()
                        .contains(" ON CONFLICT (relation, key) DO UPDATE SET token = GREATEST(fenced_tomb.token,"
                                + " EXCLUDED.token)) DELETE FROM totals t USING r WHERE "),
                p.sql());
        assertEquals(
                3, p.delegateIndexes(1).length, "the user's parameter is bound in the CTE and twice in the DELETE");
    }

    @Test
    void aStarOrOnlyTargetKeepsItsRowsInTheTombstoneQuery() {
        RewritePlan star = rewriter(SHAPES).plan("DELETE FROM totals * WHERE restaurant_id = 1");
        assertTrue(
                star instanceof RewritePlan.Fenced f
                        && f.sql().contains(" FROM totals WHERE (restaurant_id = 1) AND CAST(")
                        && f.sql().contains("DELETE FROM totals * WHERE"),
                star::toString);
        RewritePlan only = rewriter(SHAPES).plan("DELETE FROM ONLY totals WHERE restaurant_id = 1");
        assertTrue(
                only instanceof RewritePlan.Fenced f
                        && f.sql().contains(" FROM ONLY totals WHERE (restaurant_id = 1) AND CAST("),
                only::toString);
    }

    @Test
    void aMergeThatDeletesIsRefusedWhereTombstonesAreKept() {
        RewritePlan p =
                rewriter(SHAPES).plan("MERGE INTO totals t USING s ON t.restaurant_id = s.id WHEN MATCHED THEN DELETE");
        assertTrue(p instanceof RewritePlan.Refused r && r.construct().contains("tombstones"), p::toString);
        assertTrue(
                rewriter(SHAPES).plan("MERGE INTO loose t USING s ON t.a = s.a WHEN MATCHED THEN DELETE")
                        instanceof RewritePlan.Fenced);
    }

    @Test
    void aTableWithoutAPrimaryKeyHasNoTombstones() {
        RewritePlan p = rewriter(SHAPES).plan("DELETE FROM loose WHERE a = 1");
        assertTrue(p instanceof RewritePlan.Fenced f && !f.sql().contains("fenced_tombstone"), p::toString);
    }

    @Test
    void aTableTheCatalogDidNotDescribeIsRefused() {
        RewritePlan p = rewriter(Map.of()).plan("DELETE FROM totals WHERE restaurant_id = 1");
        assertTrue(p instanceof RewritePlan.Refused r && r.construct().contains("primary key"), p::toString);
    }

    @Test
    void aDeleteInsideWithPutsTheTombstonesAtTheTop() {
        RewritePlan.Fenced p = assertInstanceOf(
                RewritePlan.Fenced.class,
                rewriter(SHAPES)
                        .plan("WITH d AS (DELETE FROM totals WHERE restaurant_id = 1 RETURNING *) SELECT * FROM d"));
        assertTrue(p.sql().startsWith("WITH d AS (DELETE FROM totals WHERE "), p.sql());
        assertTrue(p.sql().contains("), fenced_tombstones_2 AS (INSERT INTO fenced_tombstone"), p.sql());
    }

    @Test
    void aNameLikeOursIsRefused() {
        RewritePlan p = rewriter(SHAPES).plan("WITH fenced_tombstones_1 AS (SELECT 1) DELETE FROM totals");
        assertTrue(p instanceof RewritePlan.Refused, p::toString);
    }
}
