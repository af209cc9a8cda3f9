package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.schema.Column;
import org.jspecify.annotations.Nullable;

/** Collects the column references of an expression (not descending into subqueries). */
final class ColumnReferences extends ExpressionVisitorAdapter<Void> {

    private final List<Column> columns = new ArrayList<>();

    static List<Column> of(Expression e) {
        ColumnReferences v = new ColumnReferences();
        e.accept(v, null);
        return v.columns;
    }

    @Override
    public <S> Void visit(Column column, S context) {
        columns.add(column);
        return null;
    }

    /**
     * Both operands: JSqlParser's adapter visits only {@link TrimFunction#getExpression()}, which is null in
     * {@code trim(leading FROM b)} (pgjdbc's {@code {fn ltrim(b)}}), and never the FROM operand, where the column is.
     */
    @Override
    public <S> Void visit(TrimFunction trim, S context) {
        if (trim.getExpression() != null) {
            trim.getExpression().accept(this, context);
        }
        if (trim.getFromExpression() != null) {
            trim.getFromExpression().accept(this, context);
        }
        return null;
    }

    /**
     * True if {@code value} reads one of {@code targets} of the row being written: an unqualified
     * reference, or one qualified with the row's own {@code qualifier}.
     */
    static @Nullable String readsOwnColumn(Expression value, List<Column> targets, String qualifier) {
        for (Column ref : of(value)) {
            String refTable = ref.getTable() == null ? null : ref.getTable().getName();
            if (refTable != null && !TableName.fold(refTable).equals(TableName.fold(qualifier))) {
                continue;
            }
            String name = TableName.fold(ref.getColumnName());
            for (Column target : targets) {
                if (TableName.fold(target.getColumnName()).equals(name)) {
                    return name;
                }
            }
        }
        return null;
    }
}
