package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.TableName;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import org.jspecify.annotations.Nullable;

/**
 * The SQL fenced adds, built as JSqlParser nodes. Built, not parsed from text: JSqlParser took ~180 µs to parse
 * the UPDATE guard, a third of a new statement's whole rewrite. {@code GuardsTest} holds the SQL each builder
 * stands for and checks that the nodes print exactly that.
 *
 * <p>The stale check sits where PostgreSQL evaluates it only for rows the statement really changes, and
 * re-evaluates it on the newest row version when a concurrent writer got there first (READ COMMITTED
 * re-check): in the SET list for UPDATE and ON CONFLICT DO UPDATE, and behind the statement's own WHERE
 * for DELETE. A row holding a newer token makes the check hand a marked text to a function that rejects it
 * ({@code pg_size_bytes}, SQLSTATE 22023, for UPDATE; a cast to boolean, 22P02, for DELETE), which fails
 * the whole statement, so no row changes; the driver recognises the marker and raises
 * {@code StaleTokenException}. The failing branch reads the row's column so the planner can never fold it
 * to a constant. A NULL token (an explicit unfenced section) leaves the fence column as it is; for UPDATE only in
 * the text planned for it ({@link SqlRewriter#planForNullToken}).
 */
final class Guards {

    /** Marker in the text PostgreSQL reports back ({@link StaleMarker}). */
    static final String MARKER = StaleMarker.PREFIX;

    /** {@link #tokenText} of the first indexes: a statement with more parameters prints its token each time. */
    private static final String[] TOKEN_TEXTS = new String[1024];

    private Guards() {}

    /** The token parameter as the fencers write it: {@code CAST(?<index> AS bigint)}, a new node each time. */
    static Expression token(int index) {
        return new CastExpression("CAST", new JdbcParameter(index, true, "?"), "bigint");
    }

    /**
     * {@link #token} printed, kept per index: the node (whose parameter compiles a regular expression) and its
     * printing were a twentieth of a never-seen MERGE's or upsert's plan by position. A race only prints the same
     * text twice.
     */
    static String tokenText(int index) {
        if (index < 0 || index >= TOKEN_TEXTS.length) {
            return token(index).toString();
        }
        String text = TOKEN_TEXTS[index];
        if (text == null) {
            text = token(index).toString();
            TOKEN_TEXTS[index] = text;
        }
        return text;
    }

    /** The value for {@code SET <column> = ...} on a protected row. */
    static Expression setValue(
            @Nullable String qualifier,
            String column,
            String tableLabel,
            int tokenIndex,
            FencingMode mode,
            boolean tokenMayBeNull) {
        if (mode == FencingMode.OBSERVE) {
            return new Function("GREATEST", fence(qualifier, column), token(tokenIndex));
        }
        // CASE WHEN pg_catalog.int8gt(c, ?) THEN pg_catalog.pg_size_bytes(<stale text>) ELSE ? END
        // Two token parameters and one comparison, as many parameters as the hand-written "last_token <= ?" form:
        // a NULL row token (never fenced) makes the comparison NULL, so the ELSE runs. PostgreSQL initialises
        // every node of this expression on each execution of a cached plan, and copies the text each time, so it
        // is kept small (bench/callgrind/run.sh counts it): the parameters carry no CAST (fenced binds the token
        // as bigint, or writes a literal), the failing branch is two plain function calls, where a cast of a
        // concatenation costs two I/O coercions, each with two catalog-cache lookups, and the ELSE is the bare
        // token: the projection then fits PostgreSQL's first 16 expression steps (a COALESCE there cost ~3,000
        // instructions per execution, 3% of the article's whole UPDATE).
        // A text that must also run with a NULL token (an unfenced section) ends in ELSE COALESCE(?, c), which
        // keeps the row's own fence value then.
        Expression otherwise = tokenMayBeNull
                ? new Function("COALESCE", parameter(tokenIndex), fence(qualifier, column))
                : parameter(tokenIndex);
        return new CaseExpression(new WhenClause(
                        newer(fence(qualifier, column), parameter(tokenIndex)),
                        new Function("pg_catalog.pg_size_bytes", staleText(qualifier, column, tableLabel))))
                .withElseExpression(otherwise);
    }

    /**
     * A DELETE's WHERE with the check: {@code (W) AND CASE WHEN (W) THEN <check> ELSE FALSE END}. The
     * first {@code (W)} keeps index use; the CASE makes sure the check only runs for rows W selects,
     * whatever order the planner evaluates conditions in.
     */
    static Expression deleteWhere(
            @Nullable Expression where, String qualifier, String column, String tableLabel, int tokenIndex) {
        // CASE WHEN pg_catalog.int8gt(c, t) THEN CAST(<stale text> AS boolean) ELSE TRUE END (NULL row token or
        // token: TRUE)
        Expression check = new CaseExpression(new WhenClause(
                        newer(fence(qualifier, column), token(tokenIndex)),
                        new CastExpression("CAST", staleText(qualifier, column, tableLabel), "boolean")))
                .withElseExpression(new BooleanValue(true));
        if (where == null) {
            return check;
        }
        Expression onlyMatched = new CaseExpression(new WhenClause(new ParenthesedExpressionList<>(where), check))
                .withElseExpression(new BooleanValue(false));
        return new AndExpression(new ParenthesedExpressionList<>(where), onlyMatched);
    }

    /**
     * {@code pg_catalog.int8gt(row, token)}: the row holds a newer token. Not {@code row > token}: an unqualified
     * operator is looked up through the session's search_path, and {@code CREATE OPERATOR evil.> (...)} with
     * {@code SET search_path = evil, public, pg_catalog} would make the guard never fire (issue 24).
     * {@code OPERATOR(pg_catalog.>)} pins it too, but JSqlParser cannot read it back, and fenced re-parses what it
     * sends; the qualified function is the same {@code int8gt} the operator calls (both columns are bigint: the
     * catalog read refuses any other fence column type), executed the same way, so the guard costs the same.
     */
    static Expression newer(Expression row, Expression token) {
        return new Function("pg_catalog.int8gt", row, token);
    }

    /** The row's fence column, {@code <qualifier>.<column>}, or the bare column when {@code qualifier} is null. */
    private static Column fence(@Nullable String qualifier, String column) {
        return qualifier == null
                ? new Column(TableName.quote(column))
                : new Column(new Table(qualifier), TableName.quote(column));
    }

    /** The token parameter alone, {@code ?<index>}: where PostgreSQL types it from the bind (bigint). */
    private static Expression parameter(int index) {
        return new JdbcParameter(index, true, "?");
    }

    /**
     * {@code pg_catalog.concat('fenced-stale:', c, ':<nonce>:<table>')}: the text a failing branch hands to a
     * function that rejects it, carrying the row's token and the table. Every failure reads the row's column, so
     * the planner can never fold it to a constant.
     */
    private static Expression staleText(@Nullable String qualifier, String column, String tableLabel) {
        return new Function(
                "pg_catalog.concat",
                new StringValue(MARKER),
                fence(qualifier, column),
                new StringValue(StaleMarker.suffix(tableLabel).replace("'", "''")));
    }
}
