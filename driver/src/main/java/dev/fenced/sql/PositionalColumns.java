package dev.fenced.sql;

import dev.fenced.config.ProtectedTable;
import dev.fenced.config.TableName;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
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

    private PositionalColumns() {
    }

    static ExpressionList<Column> name(Insert insert, ProtectedTable table, TableShape shape) throws Refusal {
        return name(valueCount(insert.getSelect(), table), table, shape);
    }

    /** The first {@code values} live columns, for a row of that many positional values. */
    static ExpressionList<Column> name(int values, ProtectedTable table, TableShape shape) throws Refusal {
        if (shape == null) {
            throw new Refusal(table.displayName(), "INSERT without a column list into a table the catalog did not"
                    + " describe (no catalog read, or several tables match the name); name the columns so the fence"
                    + " column " + table.column() + " can be added");
        }
        List<String> live = shape.columns();
        int fence = live.indexOf(table.column());
        if (fence < 0) {
            throw new Refusal(table.displayName(), "the catalog shows no fence column " + table.column());
        }
        if (values > fence) {
            throw new Refusal(table.displayName(), "INSERT without a column list whose " + values + " values reach the"
                    + " fence column " + table.column() + " (column " + (fence + 1) + "); the token is not the writer's"
                    + " to choose: name the columns");
        }
        ExpressionList<Column> columns = new ExpressionList<>();
        for (int i = 0; i < values; i++) {
            columns.add(new Column(TableName.quote(live.get(i))));
        }
        return columns;
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
                    throw new Refusal(table.displayName(), "INSERT without a column list from a query with " + item
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
        throw new Refusal(table.displayName(), "INSERT without a column list from " + (source == null ? "nothing"
                : "a query of this shape") + "; name the columns so the fence column " + table.column() + " can be added");
    }
}
