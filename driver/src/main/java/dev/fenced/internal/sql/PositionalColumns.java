package dev.fenced.internal.sql;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.List;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.Values;
import org.jspecify.annotations.Nullable;

/**
 * Names the columns of an INSERT written without a column list, exactly as PostgreSQL maps its values: the
 * n values of each row go to the first n live columns in attnum order (dropped columns skipped). With the
 * list written out, fenced can add its fence column at the end. Refused, rather than guessed: a table the
 * catalog did not describe, a query whose number of output columns the text does not show ({@code *},
 * {@code TABLE src}), and a value that would reach the fence column (the writer choosing its token). A column
 * list from an older catalog is never used after the table changed: a catalog read that finds other columns
 * makes new targets (their equality includes the shapes), which drops the plan cache and moves the runtime's
 * generation, so a prepared statement is planned again when it next runs.
 */
final class PositionalColumns {

    private PositionalColumns() {}

    static ExpressionList<Column> name(Insert insert, ProtectedTable table, @Nullable TableShape shape) throws Refusal {
        return name(valueCount(insert.getSelect(), table), table, shape);
    }

    /** The first {@code values} live columns, for a row of that many positional values. */
    static ExpressionList<Column> name(int values, ProtectedTable table, @Nullable TableShape shape) throws Refusal {
        if (shape == null) {
            throw new Refusal(
                    table.displayName(),
                    "INSERT without a column list into a table the catalog did not"
                            + " describe (no catalog read, or several tables match the name); name the columns so the fence"
                            + " column " + table.column() + " can be added");
        }
        List<String> live = shape.columns();
        int fence = live.indexOf(table.column());
        if (fence < 0) {
            throw new Refusal(table.displayName(), "the catalog shows no fence column " + table.column());
        }
        if (values > fence) {
            throw new Refusal(
                    table.displayName(),
                    "INSERT without a column list whose " + values + " values reach the"
                            + " fence column " + table.column() + " (column " + (fence + 1)
                            + "); the token is not the writer's"
                            + " to choose: name the columns");
        }
        ExpressionList<Column> columns = new ExpressionList<>();
        for (int i = 0; i < values; i++) {
            columns.add(new Column(TableName.quote(live.get(i))));
        }
        return columns;
    }

    /**
     * The token for a row whose columns were named from the catalog, checked in the same statement against the
     * table as it is when the statement runs: the catalog read the names came from may be older than DDL another
     * process ran since (a column dropped and added again moves it to the end, and PostgreSQL would map the values
     * differently). {@code CAST(CASE WHEN <live columns> = <columns read> THEN CAST(? AS text) ELSE '<why>' END AS
     * bigint)}: the token, or a failure of the whole statement naming the table. The catalog is read under the
     * statement's lock on the table, which DDL changing its columns must wait for.
     */
    static Expression checkedToken(String writtenTable, TableShape shape, int tokenIndex, String tableLabel) {
        StringBuilder array = new StringBuilder("{");
        for (String column : shape.columns()) {
            array.append(array.length() > 1 ? "," : "")
                    .append('"')
                    .append(column.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"');
        }
        array.append('}');
        // qualified functions and types, no operators: nothing here may be resolved through the session's search_path
        String live = "(SELECT pg_catalog.array_agg(CAST(a.attname AS pg_catalog.text) ORDER BY a.attnum)"
                + " FROM pg_catalog.pg_attribute a WHERE pg_catalog.oideq(a.attrelid, CAST('"
                + writtenTable.replace("'", "''") + "' AS pg_catalog.regclass))"
                + " AND pg_catalog.int24gt(a.attnum, 0) AND NOT a.attisdropped)";
        Expression liveColumns;
        try {
            liveColumns = BoundedParser.parseOwnExpression(live);
        } catch (BoundedParser.ParseFailure e) {
            throw new IllegalStateException("fenced's own column check does not parse: " + live, e);
        }
        Expression same = new Function(
                "pg_catalog.array_eq",
                liveColumns,
                new CastExpression("CAST", new StringValue(array.toString().replace("'", "''")), "pg_catalog.text[]"));
        CaseExpression value = new CaseExpression();
        value.setWhenClauses(List.of(new WhenClause(
                same, new CastExpression("CAST", new JdbcParameter(tokenIndex, true, "?"), "pg_catalog.text"))));
        value.setElseExpression(new StringValue(("fenced: the columns of " + tableLabel + " changed since fenced read"
                        + " the catalog; an INSERT without a column list is refused until it reads it again (name the columns)")
                .replace("'", "''")));
        return new CastExpression("CAST", value, "bigint");
    }

    /** The number of values per row, when the text shows it. */
    private static int valueCount(Select source, ProtectedTable table) throws Refusal {
        if (source instanceof Values values) {
            ExpressionList<?> rows = values.getExpressions();
            if (rows instanceof ParenthesedExpressionList<?> single) {
                return single.size();
            }
            int n = -1;
            for (Expression row : rows) {
                if (!(row instanceof ParenthesedExpressionList<?> r) || (n >= 0 && r.size() != n)) {
                    throw new Refusal(table.displayName(), "a VALUES list of an unexpected shape: " + values);
                }
                n = r.size();
            }
            return n;
        }
        if (source instanceof PlainSelect plain) {
            for (SelectItem<?> item : plain.getSelectItems()) {
                if (item.getExpression() instanceof AllColumns || item.getExpression() instanceof AllTableColumns) {
                    throw new Refusal(
                            table.displayName(),
                            "INSERT without a column list from a query with " + item
                                    + ": fenced cannot see how many columns it gives; name the columns");
                }
            }
            return plain.getSelectItems().size();
        }
        if (source instanceof SetOperationList set && !set.getSelects().isEmpty()) {
            return valueCount(set.getSelects().get(0), table);
        }
        if (source instanceof ParenthesedSelect parenthesed && parenthesed.getSelect() != null) {
            return valueCount(parenthesed.getSelect(), table);
        }
        throw new Refusal(
                table.displayName(),
                "INSERT without a column list from " + (source == null ? "nothing" : "a query of this shape")
                        + "; name the columns so the fence column " + table.column() + " can be added");
    }
}
