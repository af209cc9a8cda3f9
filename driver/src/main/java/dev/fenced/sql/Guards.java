package dev.fenced.sql;

import dev.fenced.FencingMode;
import dev.fenced.config.TableName;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.arithmetic.Concat;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;

/**
 * The SQL fenced adds, built as JSqlParser nodes. Built, not parsed from text: JSqlParser took ~180 µs to parse
 * the UPDATE guard, a third of a new statement's whole rewrite. {@code GuardsTest} holds the SQL each builder
 * stands for and checks that the nodes print exactly that.
 *
 * <p>The stale check sits where PostgreSQL evaluates it only for rows the statement really changes, and
 * re-evaluates it on the newest row version when a concurrent writer got there first (READ COMMITTED
 * re-check): in the SET list for UPDATE and ON CONFLICT DO UPDATE, and behind the statement's own WHERE
 * for DELETE. A row holding a newer token makes the check cast a marked text to a number, which fails
 * the whole statement, so no row changes; the driver recognises the marker and raises
 * {@code StaleTokenException}. The failing branch reads the row's column so the planner can never fold it
 * to a constant. A NULL token (an explicit unfenced section) leaves the fence column as it is.
 */
final class Guards {

    /** Marker in the text PostgreSQL reports back ({@link StaleMarker}). */
    static final String MARKER = StaleMarker.PREFIX;

    private Guards() {
    }

    /** The token parameter as the fencers write it: {@code CAST(?<index> AS bigint)}, a new node each time. */
    static Expression token(int index) {
        return new CastExpression("CAST", new JdbcParameter(index, true, "?"), "bigint");
    }

    /** The value for {@code SET <column> = ...} on a protected row. */
    static Expression setValue(String qualifier, String column, String tableLabel, int tokenIndex, FencingMode mode) {
        if (mode == FencingMode.OBSERVE) {
            return new Function("GREATEST", fence(qualifier, column), token(tokenIndex));
        }
        // CASE WHEN t IS NULL THEN c WHEN COALESCE(c, 0) <= t THEN t ELSE CAST(<stale text> AS bigint) END
        return new CaseExpression(
                new WhenClause(new IsNullExpression(token(tokenIndex)), fence(qualifier, column)),
                new WhenClause(new MinorThanEquals(coalesced(qualifier, column), token(tokenIndex)), token(tokenIndex)))
                .withElseExpression(staleCast(qualifier, column, tableLabel, "bigint"));
    }

    /**
     * A DELETE's WHERE with the check: {@code (W) AND CASE WHEN (W) THEN <check> ELSE FALSE END}. The
     * first {@code (W)} keeps index use; the CASE makes sure the check only runs for rows W selects,
     * whatever order the planner evaluates conditions in.
     */
    static Expression deleteWhere(Expression where, String qualifier, String column, String tableLabel, int tokenIndex) {
        // CASE WHEN t IS NULL OR COALESCE(c, 0) <= t THEN TRUE ELSE CAST(<stale text> AS boolean) END
        Expression check = new CaseExpression(new WhenClause(
                new OrExpression(new IsNullExpression(token(tokenIndex)),
                        new MinorThanEquals(coalesced(qualifier, column), token(tokenIndex))),
                new BooleanValue(true)))
                .withElseExpression(staleCast(qualifier, column, tableLabel, "boolean"));
        if (where == null) {
            return check;
        }
        Expression onlyMatched = new CaseExpression(new WhenClause(new ParenthesedExpressionList<>(where), check))
                .withElseExpression(new BooleanValue(false));
        return new AndExpression(new ParenthesedExpressionList<>(where), onlyMatched);
    }

    /** The row's fence column, {@code <qualifier>.<column>}. */
    private static Column fence(String qualifier, String column) {
        return new Column(new Table(qualifier), TableName.quote(column));
    }

    private static Expression coalesced(String qualifier, String column) {
        return new Function("COALESCE", fence(qualifier, column), new LongValue(0));
    }

    /** {@code CAST('fenced-stale:' || c || ':<nonce>:<table>' AS <type>)}: fails, carrying the row's token and the table. */
    private static Expression staleCast(String qualifier, String column, String tableLabel, String type) {
        Expression text = new Concat(new Concat(new StringValue(MARKER), fence(qualifier, column)),
                new StringValue(StaleMarker.suffix(tableLabel).replace("'", "''")));
        return new CastExpression("CAST", text, type);
    }
}
