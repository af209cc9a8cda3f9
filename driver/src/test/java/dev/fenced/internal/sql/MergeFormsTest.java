package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.RelativeUpdatePolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The MERGE forms JSqlParser cannot read and {@link MergePlaceholders} gives it to read: DO NOTHING, INSERT DEFAULT
 * VALUES and a join as the source. Exact output, and the user's text kept where fenced adds nothing.
 */
class MergeFormsTest {

    private final SqlRewriter rewriter = SqlRewriterTest.rewriter(RelativeUpdatePolicy.WARN);

    private RewritePlan.Fenced fenced(String sql) {
        RewritePlan plan = rewriter.plan(sql);
        return assertInstanceOf(RewritePlan.Fenced.class, plan, () -> sql + " -> " + plan);
    }

    private String refused(String sql) {
        RewritePlan plan = rewriter.plan(sql);
        return assertInstanceOf(RewritePlan.Refused.class, plan, () -> sql + " -> " + plan)
                .construct();
    }

    /**
     * A MERGE DELETE's condition is evaluated twice (the check repeats it), so, like a DELETE's WHERE, it must give
     * the same answer both times, else a row it picked first could fall to a later WHEN clause: a volatile function or
     * an unordered LIMIT in it is refused, on the parser's path and by position (JSqlParser cannot read {@code IS NOT
     * NULL IS TRUE} nor {@code - -}) alike.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND my_volatile() > 0 THEN DELETE"
                        + "|the volatile function my_volatile()",
                "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND s.b IS NOT NULL IS TRUE"
                        + " AND my_volatile() > 0 THEN DELETE|the volatile function my_volatile()",
                "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND t.id IN (SELECT id FROM s LIMIT 1)"
                        + " THEN DELETE WHEN MATCHED THEN UPDATE SET amount = 1|LIMIT but no ORDER BY",
                "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND - - t.id IN (SELECT id FROM s LIMIT 1)"
                        + " THEN DELETE|LIMIT but no ORDER BY"
            })
    void aMergeDeleteWhoseConditionMayChangeBetweenItsTwoEvaluationsIsRefused(String sql, String reason) {
        String construct = refused(sql);
        assertTrue(construct.contains("MERGE ... THEN DELETE whose WHEN condition"), construct);
        assertTrue(construct.contains(reason), construct);
    }

    @Test
    void aMergeDeleteWhoseConditionRepeatsIsFencedAndAnObservedOneIsNotRefused() {
        fenced("MERGE INTO totals t USING s ON t.id = s.id"
                + " WHEN MATCHED AND t.id IN (SELECT id FROM s ORDER BY id LIMIT 1) THEN DELETE");
        fenced("MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND - - t.id IN (SELECT id FROM s ORDER BY id"
                + " LIMIT 1) THEN DELETE");
        // observe mode adds no check to a DELETE, so nothing is evaluated twice
        assertFalse(
                rewriter.plan("MERGE INTO sales.orders o USING s ON o.id = s.id"
                                + " WHEN MATCHED AND my_volatile() > 0 THEN DELETE")
                        instanceof RewritePlan.Refused);
    }

    @Test
    void doNothingStaysAsWrittenAndTheOtherActionsAreFenced() {
        RewritePlan.Fenced p =
                fenced("MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND s.x > 1 THEN DO NOTHING"
                        + " WHEN MATCHED THEN UPDATE SET amount = s.amount WHEN NOT MATCHED THEN DO NOTHING");
        assertEquals(
                "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED AND s.x > 1 THEN DO NOTHING"
                        + " WHEN MATCHED THEN UPDATE SET amount = s.amount, last_token = "
                        + SqlRewriterTest.guard("t", "totals") + " WHEN NOT MATCHED THEN DO NOTHING",
                p.sql());
        assertEquals(2, p.tokenIndexes().length);
    }

    @Test
    void doNothingBySourceAndAnInsertBesideIt() {
        RewritePlan.Fenced p = fenced("MERGE INTO totals t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DO"
                + " NOTHING WHEN NOT MATCHED BY TARGET THEN INSERT (id) VALUES (s.id)");
        assertEquals(
                "MERGE INTO totals t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DO NOTHING"
                        + " WHEN NOT MATCHED BY TARGET THEN INSERT (id, last_token) VALUES (s.id, "
                        + SqlRewriterTest.T + ")",
                p.sql());
    }

    @Test
    void aMergeThatOnlyDoesNothingGoesAsWrittenWithNoToken() {
        String sql = "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED THEN DO NOTHING";
        RewritePlan.Fenced p = fenced(sql);
        assertEquals(sql, p.sql());
        assertEquals(0, p.tokenIndexes().length);
    }

    @Test
    void insertDefaultValuesGetsTheFenceColumnAlone() {
        RewritePlan.Fenced p = fenced("MERGE INTO totals AS t USING s ON t.id = s.id"
                + " WHEN NOT MATCHED THEN INSERT DEFAULT VALUES WHEN MATCHED THEN DELETE");
        assertTrue(
                p.sql()
                        .startsWith("MERGE INTO totals AS t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT"
                                + " (last_token) VALUES (" + SqlRewriterTest.T + ") WHEN MATCHED AND "),
                p.sql());
        assertFalse(p.sql().contains("DEFAULT"), p.sql());
        assertFalse(p.sql().contains(MergePlaceholders.PREFIX), p.sql());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "a JOIN b ON a.id = b.id|t.id = a.id",
                "a s1 INNER JOIN b s2 ON s1.id = s2.id AND s2.k = 20|t.id = s1.id",
                "a LEFT OUTER JOIN b USING (id)|t.id = a.id",
                "(SELECT * FROM a) x FULL JOIN b y ON x.k = y.k * 10|t.id = x.k",
                "a CROSS JOIN (VALUES (1)) k(x) JOIN b ON b.id = a.id|t.id = a.id + k.x",
                "a NATURAL JOIN b|t.id = a.id",
                "a JOIN (b JOIN c ON b.id = c.id) ON a.id = b.id|(t.id = a.id)",
            })
    void aJoinAsTheSourceIsSentAsWritten(String source, String on) {
        String head = "MERGE INTO totals t USING " + source + " ON " + on;
        RewritePlan.Fenced p = fenced(head + " WHEN MATCHED THEN UPDATE SET amount = 1");
        assertEquals(
                head + " WHEN MATCHED THEN UPDATE SET amount = 1, last_token = " + SqlRewriterTest.guard("t", "totals"),
                p.sql());
    }

    @Test
    void mergeIntoOnlyKeepsItsOnly() {
        RewritePlan.Fenced p =
                fenced("MERGE INTO ONLY totals t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = 1");
        assertEquals(
                "MERGE INTO ONLY totals t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = 1, last_token = "
                        + SqlRewriterTest.guard("t", "totals"),
                p.sql());
    }

    /** JSqlParser cannot read it; fenced by position (MergeSkeleton): the join kept as written, the DELETE guarded. */
    @Test
    void aJoinWhoseConditionHasACaseIsFencedByPosition() {
        String sql = "MERGE INTO totals t USING a JOIN b ON CASE WHEN a.id = b.id THEN true END ON t.id = a.id"
                + " WHEN MATCHED THEN DELETE";
        RewritePlan.Fenced p = fenced(sql);
        assertTrue(
                p.sql()
                        .startsWith(sql.substring(0, sql.indexOf(" THEN DELETE")) + " AND CASE WHEN pg_catalog.int8gt("
                                + "t.last_token, "),
                p.sql());
        assertTrue(p.sql().endsWith(" THEN DELETE") && p.sql().contains(Guards.MARKER), p.sql());
    }

    @Test
    void theFormsInStringsAndNamesAreTheUsers() {
        // a string holding a placeholder's spelling is a literal all the way through
        RewritePlan.Fenced p =
                fenced("MERGE INTO totals t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, note)"
                        + " VALUES (s.id, 'THEN DO NOTHING UPDATE SET fenced_merge_nothing_0 = NULL')");
        assertTrue(p.sql().contains("'THEN DO NOTHING UPDATE SET fenced_merge_nothing_0 = NULL'"), p.sql());
        // a name spelled like a placeholder is refused, as the cursor placeholders' are
        assertTrue(refused("UPDATE totals SET fenced_merge_nothing_0 = 1").contains("starts like fenced's own"));
        assertTrue(refused("MERGE INTO totals t USING s fenced_merge_join_0 ON t.id = fenced_merge_join_0.id"
                        + " WHEN MATCHED THEN DELETE")
                .contains("starts like fenced's own"));
    }

    @Test
    void doNothingAfterAnUnconditionalDeleteIsRefusedAsPostgreSqlRejectsIt() {
        assertTrue(refused("MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED THEN DELETE"
                        + " WHEN MATCHED THEN DO NOTHING")
                .contains("unreachable"));
    }

    @Test
    void insertDefaultValuesUnderMatchedIsRefusedAsPostgreSqlRejectsIt() {
        assertTrue(refused("MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED THEN INSERT DEFAULT VALUES")
                .contains("WHEN MATCHED THEN INSERT"));
    }
}
