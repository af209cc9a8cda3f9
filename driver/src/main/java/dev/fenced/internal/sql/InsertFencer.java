package dev.fenced.internal.sql;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.List;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.insert.InsertConflictAction;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.Values;

/**
 * INSERT: the fence column joins the column list and every row supplies the token; ON CONFLICT DO
 * UPDATE gets the same guarded SET as an UPDATE. Without a column list, values map to columns by position;
 * the catalog's column list names them first ({@link PositionalColumns}), so adding ours shifts nothing.
 */
final class InsertFencer {

    private static final String SOURCE_ALIAS = "fenced_src";

    private InsertFencer() {}

    private static boolean hasAny(List<?> items) {
        return items != null && !items.isEmpty();
    }

    static void fence(Insert insert, ProtectedTable table, FenceContext ctx) throws Refusal {
        // what the deprecated isUseSet() and isUseDuplicate() read
        if (hasAny(insert.getSetUpdateSets())
                || insert.getDuplicateAction() != null
                        && hasAny(insert.getDuplicateAction().getUpdateSets())
                || insert.getOutputClause() != null) {
            throw new Refusal(
                    table.displayName(), "INSERT ... SET, ON DUPLICATE KEY or OUTPUT (not PostgreSQL syntax)");
        }
        Column fenceColumn = new Column(TableName.quote(table.column()));
        if (insert.isOnlyDefaultValues()) {
            insert.setOnlyDefaultValues(false);
            insert.setColumns(new ExpressionList<>(fenceColumn));
            insert.setSelect(new Values(new ParenthesedExpressionList<>(tokenParameter(ctx))));
        } else {
            ExpressionList<Column> columns = insert.getColumns();
            java.util.function.Supplier<Expression> token = () -> tokenParameter(ctx);
            if (columns == null || columns.isEmpty()) {
                TableShape shape = ctx.targets.shapeOf(table);
                columns = PositionalColumns.name(insert, table, shape);
                TableShape described = java.util.Objects.requireNonNull(shape, "name() refuses a table with no shape");
                insert.setColumns(columns);
                String written = insert.getTable().getFullyQualifiedName();
                // The check is the same for every row and every VALUES row is evaluated, so the first row carries it
                // (a failure there fails the statement) and the others the plain token: one catalog lookup, not one a
                // row.
                boolean[] checked = {false};
                token = () -> {
                    if (checked[0]) {
                        return tokenParameter(ctx);
                    }
                    checked[0] = true;
                    return PositionalColumns.checkedToken(written, described, ctx.tokenIndex, table.displayName());
                };
            }
            for (Column c : columns) {
                if (TableName.fold(c.getColumnName()).equals(table.column())) {
                    throw Refusal.setsFenceColumn(table);
                }
            }
            supplyToken(insert, columns.size(), table, token);
            columns.add(fenceColumn);
        }
        InsertConflictAction conflict = insert.getConflictAction();
        if (conflict != null && conflict.getConflictActionType() == ConflictActionType.DO_UPDATE) {
            Table target = insert.getTable();
            if (target.getAlias() == null && TableName.fold(target.getName()).equals("excluded")) {
                // The guard names the row as excluded.<column>, which PostgreSQL rejects as ambiguous with
                // the EXCLUDED pseudo-row (and an alias of our own would change what the user's excluded.x means).
                throw new Refusal(
                        table.displayName(),
                        "INSERT ... ON CONFLICT DO UPDATE into a table named excluded"
                                + " without an alias; write INSERT INTO excluded AS t ...");
            }
            UpdateFencer.appendGuardedSet(conflict.getUpdateSets(), table, FenceContext.qualifier(target), ctx);
        }
    }

    private static void supplyToken(
            Insert insert, int columnCount, ProtectedTable table, java.util.function.Supplier<Expression> token)
            throws Refusal {
        Select source = insert.getSelect();
        if (source instanceof Values values
                && values.getAlias() == null
                && values.getWithItemsList() == null
                && values.getOrderByElements() == null
                && values.getLimit() == null
                && values.getOffset() == null) {
            ExpressionList<?> rows = values.getExpressions();
            if (rows instanceof ParenthesedExpressionList<?> single) {
                addToRow(single, columnCount, table, token);
            } else {
                for (Expression row : rows) {
                    if (!(row instanceof ParenthesedExpressionList<?> r)) {
                        throw new Refusal(table.displayName(), "a VALUES row of an unexpected shape: " + row);
                    }
                    addToRow(r, columnCount, table, token);
                }
            }
        } else if (source instanceof PlainSelect plain && plain.getIntoTables() == null) {
            plain.addSelectItems(token.get());
        } else if (source != null) {
            // Set operations, parenthesised queries, VALUES with clauses: add the token around the query.
            PlainSelect wrapper = new PlainSelect()
                    .addSelectItems(new AllTableColumns(new Table(SOURCE_ALIAS)))
                    .addSelectItems(token.get());
            ParenthesedSelect inner = new ParenthesedSelect();
            inner.setSelect(source);
            inner.setAlias(new Alias(SOURCE_ALIAS));
            wrapper.setFromItem(inner);
            insert.setSelect(wrapper);
        } else {
            throw new Refusal(table.displayName(), "INSERT without VALUES or a query");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void addToRow(
            ParenthesedExpressionList row,
            int columnCount,
            ProtectedTable table,
            java.util.function.Supplier<Expression> token)
            throws Refusal {
        if (row.size() != columnCount) {
            throw new Refusal(
                    table.displayName(), "a VALUES row has " + row.size() + " values for " + columnCount + " columns");
        }
        row.add(token.get());
    }

    private static Expression tokenParameter(FenceContext ctx) {
        return Guards.token(ctx.tokenIndex);
    }
}
