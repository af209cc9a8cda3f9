package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Statement shapes: constants and server-side parameters replaced, comments dropped, whitespace folded, everything
 * else as written; and reading statements found outside the driver.
 */
class SqlShapeTest {

    @Test
    void constantsBecomePlaceholdersAndWhitespaceFolds() {
        assertEquals(
                "UPDATE totals SET amount = ? WHERE id = ?",
                SqlShape.of("UPDATE  totals\n\tSET amount = 42 WHERE id = 'x'"));
        assertEquals(
                SqlShape.of("UPDATE totals SET amount = 7 WHERE id = 'y'"),
                SqlShape.of("UPDATE totals SET amount = 42 WHERE id = 'x'"));
        assertEquals("UPDATE totals SET amount=? WHERE id=?", SqlShape.of("UPDATE totals SET amount=1.5e3 WHERE id=?"));
    }

    @Test
    void commentsAndEveryKindOfStringGo() {
        assertEquals(
                "INSERT INTO t (a, b, c) VALUES (?, ?, ?)",
                SqlShape.of("INSERT INTO t (a, b, c) /* note */ VALUES (E'it''s\\n', $q$x$q$, -- trailing\n 0x1F)"));
    }

    @Test
    void namesStayAndServerParametersBecomeJdbcOnes() {
        assertEquals(
                "DELETE FROM \"Sales\".totals WHERE id = ? AND x = ?",
                SqlShape.of("DELETE FROM \"Sales\".totals WHERE id = $1 AND x = ?"));
        assertEquals("", SqlShape.of(null));
    }

    /**
     * One statement, as the application wrote it through JDBC (what the inventory records), as pg_stat_statements
     * normalises it, as the statement log shows it executed with its constants and prepared: one shape.
     */
    @Test
    void theApplicationsTextAndTheServersRecordsOfItAreOneShape() {
        String shape = "UPDATE totals SET amount = ?, note = ? WHERE id = ?";
        for (String text : List.of(
                "UPDATE totals SET amount = ?, note = ? WHERE id = ?",
                "UPDATE totals SET amount = $1, note = $2 WHERE id = $3",
                "UPDATE totals SET amount = 42, note = 'it''s' WHERE id = 7",
                "UPDATE totals\n\tSET amount = 42, /* why */ note = E'x' -- and more\n WHERE id = $1")) {
            assertEquals(shape, SqlShape.of(text), text);
        }
    }

    @Test
    void serverParametersBecomeJdbcOnesOutsideLiterals() {
        assertEquals(
                "UPDATE t SET a = ?, b = '$1' WHERE id = ? -- $3",
                SqlShape.withJdbcParameters("UPDATE t SET a = $1, b = '$1' WHERE id = $2 -- $3"));
        assertEquals("SELECT $tag$ $1 $tag$", SqlShape.withJdbcParameters("SELECT $tag$ $1 $tag$"));
    }

    /** What fenced sends, as pg_stat_statements shows it, is recognised; the same shape written by hand is not. */
    @Test
    void fencedOutputCarriesTheTokenPlaceholder() {
        SqlRewriter rewriter = new SqlRewriter(
                FencingTargets.of(
                        List.of(new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.WARN,
                Duration.ofSeconds(2));
        for (String sql : List.of(
                "UPDATE totals SET amount = ? WHERE id = ?",
                "INSERT INTO totals (id) VALUES (?)",
                "DELETE FROM totals WHERE id = ?")) {
            RewritePlan.Fenced plan = assertInstanceOf(RewritePlan.Fenced.class, rewriter.plan(sql), sql);
            assertTrue(SqlShape.carriesFencedToken(plan.sql()), plan::sql);
            assertTrue(SqlShape.carriesFencedToken(plan.render(42)), plan::sql);
            assertFalse(SqlShape.carriesFencedToken(sql), sql);
        }
        assertFalse(SqlShape.carriesFencedToken("UPDATE totals SET last_token = CAST(x AS bigint)"));
        // as pg_stat_statements shows the UPDATE guard: every constant, the marker too, is a $n
        assertTrue(SqlShape.carriesFencedToken("UPDATE ledger SET amount = $1, last_token = CASE WHEN"
                + " pg_catalog.int8gt(ledger.last_token, $2) THEN pg_catalog.pg_size_bytes(pg_catalog.concat($3, ledger.last_token, $4))"
                + " ELSE $5 END WHERE id = $6"));
        assertFalse(SqlShape.carriesFencedToken("UPDATE ledger SET last_token = pg_size_bytes(concat($1, $2))"));
    }

    /** An INSERT without a column list: fenced checks the column order before the token goes in. */
    @Test
    void positionalInsertOutputIsRecognisedToo() {
        TableName totals = TableName.parse("totals");
        SqlRewriter rewriter = new SqlRewriter(
                FencingTargets.modelled(
                        List.of(new ProtectedTable(totals, "last_token", FencingMode.ENFORCE)),
                        java.util.Map.of(),
                        java.util.Set.of(),
                        java.util.Map.of(
                                totals, new TableShape(List.of("id", "amount", "last_token"), List.of(), null)),
                        null),
                RelativeUpdatePolicy.WARN,
                Duration.ofSeconds(2));
        RewritePlan.Fenced plan =
                assertInstanceOf(RewritePlan.Fenced.class, rewriter.plan("INSERT INTO totals VALUES (?, ?)"));
        assertTrue(SqlShape.carriesFencedToken(plan.sql()), plan::sql);
        RewritePlan again = rewriter.plan(plan.sql());
        assertTrue(
                again instanceof RewritePlan.Refused r
                        && r.construct().startsWith("the statement sets the fence column"),
                again::toString);
    }

    @Test
    void firstWordAndLexing() {
        assertEquals("UPDATE", SqlShape.firstWord("UPDATE t SET a = 1"));
        assertEquals("SELECT", SqlShape.firstWord("(SELECT 1) UNION SELECT 2"));
        assertEquals(null, SqlShape.firstWord("'text'"));
        assertFalse(SqlShape.lexes("SELECT 'open"));
        assertTrue(SqlShape.lexes("SELECT 'closed'"));
    }
}
