package dev.fenced.sql;

import dev.fenced.FencingMode;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;

/**
 * The SQL fenced adds, parsed from templates into JSqlParser nodes.
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

    /** Marker in the text PostgreSQL reports back: {@code fenced-stale:<row token>:<table>}. */
    static final String MARKER = "fenced-stale:";

    private Guards() {
    }

    /** The value for {@code SET <column> = ...} on a protected row. */
    static Expression setValue(String columnRef, String tableLabel, String tokenParam, FencingMode mode) {
        if (mode == FencingMode.OBSERVE) {
            return BoundedParser.parseExpression("GREATEST(" + columnRef + ", " + tokenParam + ")");
        }
        return BoundedParser.parseExpression("CASE WHEN " + tokenParam + " IS NULL THEN " + columnRef
                + " WHEN COALESCE(" + columnRef + ", 0) <= " + tokenParam + " THEN " + tokenParam
                + " ELSE CAST(" + staleText(columnRef, tableLabel) + " AS bigint) END");
    }

    /**
     * A DELETE's WHERE with the check: {@code (W) AND CASE WHEN (W) THEN <check> ELSE FALSE END}. The
     * first {@code (W)} keeps index use; the CASE makes sure the check only runs for rows W selects,
     * whatever order the planner evaluates conditions in.
     */
    static Expression deleteWhere(Expression where, String columnRef, String tableLabel, String tokenParam) {
        Expression check = BoundedParser.parseExpression("CASE WHEN " + tokenParam + " IS NULL OR COALESCE("
                + columnRef + ", 0) <= " + tokenParam + " THEN TRUE ELSE CAST(" + staleText(columnRef, tableLabel)
                + " AS boolean) END");
        if (where == null) {
            return check;
        }
        CaseExpression onlyMatched = (CaseExpression) BoundedParser.parseExpression(
                "CASE WHEN fenced_where THEN TRUE ELSE FALSE END");
        onlyMatched.getWhenClauses().get(0).setWhenExpression(new ParenthesedExpressionList<>(where));
        onlyMatched.getWhenClauses().get(0).setThenExpression(check);
        return new AndExpression(new ParenthesedExpressionList<>(where), onlyMatched);
    }

    private static String staleText(String columnRef, String tableLabel) {
        return "'" + MARKER + "' || " + columnRef + " || ':" + tableLabel.replace("'", "''") + "'";
    }
}
