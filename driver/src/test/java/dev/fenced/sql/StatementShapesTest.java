package dev.fenced.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.config.ProtectedTable;
import dev.fenced.config.RelativeUpdatePolicy;
import dev.fenced.config.TableName;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementShapesTest {

    @Test
    void serverParametersBecomeJdbcOnesOutsideLiterals() {
        assertEquals("UPDATE t SET a = ?, b = '$1' WHERE id = ? -- $3",
                StatementShapes.withJdbcParameters("UPDATE t SET a = $1, b = '$1' WHERE id = $2 -- $3"));
        assertEquals("SELECT $tag$ $1 $tag$", StatementShapes.withJdbcParameters("SELECT $tag$ $1 $tag$"));
    }

    /** What fenced sends, as pg_stat_statements shows it, is recognised; the same shape written by hand is not. */
    @Test
    void fencedOutputCarriesTheTokenPlaceholder() {
        SqlRewriter rewriter = new SqlRewriter(FencingTargets.of(List.of(
                new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.WARN, Duration.ofSeconds(2));
        for (String sql : List.of("UPDATE totals SET amount = ? WHERE id = ?", "INSERT INTO totals (id) VALUES (?)",
                "DELETE FROM totals WHERE id = ?")) {
            RewritePlan plan = rewriter.plan(sql);
            assertTrue(plan.isFenced(), sql);
            assertTrue(StatementShapes.carriesFencedToken(plan.sql()), plan::sql);
            assertTrue(StatementShapes.carriesFencedToken(plan.render(42)), plan::sql);
            assertFalse(StatementShapes.carriesFencedToken(sql), sql);
        }
        assertFalse(StatementShapes.carriesFencedToken("UPDATE totals SET last_token = CAST(x AS bigint)"));
    }

    /** An INSERT without a column list: fenced checks the column order before the token goes in. */
    @Test
    void positionalInsertOutputIsRecognisedToo() {
        TableName totals = TableName.parse("totals");
        SqlRewriter rewriter = new SqlRewriter(new FencingTargets(List.of(
                new ProtectedTable(totals, "last_token", FencingMode.ENFORCE)), java.util.Map.of(), java.util.Set.of(),
                java.util.Map.of(totals, new TableShape(List.of("id", "amount", "last_token"), List.of(), null)), null),
                RelativeUpdatePolicy.WARN, Duration.ofSeconds(2));
        RewritePlan plan = rewriter.plan("INSERT INTO totals VALUES (?, ?)");
        assertTrue(plan.isFenced(), plan::toString);
        assertTrue(StatementShapes.carriesFencedToken(plan.sql()), plan::sql);
        RewritePlan again = rewriter.plan(plan.sql());
        assertTrue(again.isRefused() && again.refusedConstruct().startsWith("the statement sets the fence column"),
                again::toString);
    }

    @Test
    void firstWordAndLexing() {
        assertEquals("UPDATE", StatementShapes.firstWord("UPDATE t SET a = 1"));
        assertEquals("SELECT", StatementShapes.firstWord("(SELECT 1) UNION SELECT 2"));
        assertEquals(null, StatementShapes.firstWord("'text'"));
        assertFalse(StatementShapes.lexes("SELECT 'open"));
        assertTrue(StatementShapes.lexes("SELECT 'closed'"));
    }
}
