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

/** A fenced DELETE of a table with a primary key hands its token to the trigger that records its tombstones. */
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

    /**
     * The DELETE stays one statement, evaluated once: the check trigger records what it deletes, and the only
     * addition is the condition that hands the trigger the token (and fails when the trigger is not there).
     */
    @Test
    void aDeleteHandsItsTokenToTheTriggerThatRecordsItsTombstones() {
        RewritePlan.Fenced p = assertInstanceOf(
                RewritePlan.Fenced.class,
                rewriter(SHAPES).plan("DELETE FROM totals t USING r WHERE t.restaurant_id = r.id AND r.x = ?"));
        assertTrue(
                p.sql().startsWith("DELETE FROM totals t USING r WHERE (t.restaurant_id = r.id AND r.x = ?)"), p.sql());
        assertTrue(
                p.sql()
                        .endsWith(" AND (SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger fenced_trg"
                                + " WHERE pg_catalog.oideq(fenced_trg.tgrelid, CAST('totals' AS pg_catalog.regclass))"
                                + " AND pg_catalog.nameeq(fenced_trg.tgname, 'fenced_tombstone_check')"
                                + " AND pg_catalog.charne(fenced_trg.tgenabled, 'D')"
                                + " AND pg_catalog.int2ne(pg_catalog.int2and(fenced_trg.tgtype, CAST(8 AS pg_catalog.int2)),"
                                + " CAST(0 AS pg_catalog.int2))) AND pg_catalog.set_config('fenced.deleter',"
                                + " pg_catalog.concat_ws('/', pg_catalog.statement_timestamp(), CAST(? AS bigint)), true)"
                                + " IS NOT NULL THEN 'true' ELSE 'fenced: the tombstone check trigger of totals is missing"
                                + " or disabled (the table was created again since fenced read the catalog?); a DELETE is"
                                + " refused until it is read again' END AS boolean))"),
                p.sql());
        assertTrue(!p.sql().contains("fenced_tombstone AS") && !p.sql().startsWith("WITH"), p.sql());
        assertEquals(
                2, p.delegateIndexes(1).length, "the user's parameter is bound twice in the guarded WHERE, no more");
    }

    @Test
    void aStarOrOnlyTargetChecksTheTriggerOfThePlainTable() {
        RewritePlan star = rewriter(SHAPES).plan("DELETE FROM totals * WHERE restaurant_id = 1");
        assertTrue(
                star instanceof RewritePlan.Fenced f
                        && f.sql().contains("CAST('totals' AS pg_catalog.regclass)")
                        && f.sql().startsWith("DELETE FROM totals * WHERE"),
                star::toString);
        RewritePlan only = rewriter(SHAPES).plan("DELETE FROM ONLY totals WHERE restaurant_id = 1");
        assertTrue(
                only instanceof RewritePlan.Fenced f
                        && f.sql().contains("CAST('totals' AS pg_catalog.regclass)")
                        && f.sql().startsWith("DELETE FROM ONLY totals WHERE"),
                only::toString);
    }

    @Test
    void aMergeThatDeletesHandsItsTokenToTheTriggerWhereTombstonesAreKept() {
        RewritePlan p =
                rewriter(SHAPES).plan("MERGE INTO totals t USING s ON t.restaurant_id = s.id WHEN MATCHED THEN DELETE");
        assertTrue(
                p instanceof RewritePlan.Fenced f
                        && f.sql().contains("pg_catalog.set_config('" + Tombstones.DELETER_SETTING + "'")
                        && f.sql().contains("CAST('totals' AS pg_catalog.regclass)"),
                p::toString);
        RewritePlan loose = rewriter(SHAPES).plan("MERGE INTO loose t USING s ON t.a = s.a WHEN MATCHED THEN DELETE");
        assertTrue(
                loose instanceof RewritePlan.Fenced f && !f.sql().contains(Tombstones.DELETER_SETTING),
                loose::toString);
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
    void aDeleteInsideWithHandsOverItsTokenInPlace() {
        RewritePlan.Fenced p = assertInstanceOf(
                RewritePlan.Fenced.class,
                rewriter(SHAPES)
                        .plan("WITH d AS (DELETE FROM totals WHERE restaurant_id = 1 RETURNING *) SELECT * FROM d"));
        assertTrue(p.sql().startsWith("WITH d AS (DELETE FROM totals WHERE "), p.sql());
        assertTrue(p.sql().contains(" IS NOT NULL THEN 'true' ELSE 'fenced: the tombstone check"), p.sql());
        assertTrue(p.sql().endsWith(" END AS boolean)) RETURNING *) SELECT * FROM d"), p.sql());
    }
}
