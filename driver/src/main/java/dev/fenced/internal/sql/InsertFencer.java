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
 * INSERT: the fence column joins the column list and every row supplies the token (inside parentheses around the
 * whole source, where PostgreSQL types the untyped literals as without them); ON CONFLICT DO
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
        // PostgreSQL drops parentheses around the whole source from its parse tree, and merges an ORDER BY, LIMIT,
        // OFFSET, FETCH, row lock or WITH outside them into the query inside: (SELECT '5') LIMIT 1 is SELECT '5'
        // LIMIT 1, whose untyped literals the target columns type. The token goes where it would go without them;
        // a wrapper around them would type the literals as text first (42804 where raw PostgreSQL inserts).
        Select inner = source;
        boolean clauses = false;
        while (inner instanceof ParenthesedSelect layer
                && layer.getAlias() == null
                && layer.getPivot() == null
                && layer.getUnPivot() == null
                && layer.getSampleClause() == null
                && layer.getSelect() != null) {
            // anything printed beside the parentheses is a clause of the layer's own (JSqlParser knows more than the
            // few PostgreSQL merges; any of them makes a VALUES inside a query, not rows)
            clauses |= !layer.toString().equals("(" + layer.getSelect() + ")");
            inner = layer.getSelect();
        }
        if (!clauses
                && inner instanceof Values values
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
        } else if (inner instanceof PlainSelect plain && plain.getIntoTables() == null) {
            plain.addSelectItems(token.get());
        } else if (source != null) {
            // Set operations, VALUES with clauses (typed alike inside a wrapper: PostgreSQL resolves their untyped
            // literals before the INSERT sees them): add the token around the query.
            PlainSelect wrapper = new PlainSelect()
                    .addSelectItems(new AllTableColumns(new Table(SOURCE_ALIAS)))
                    .addSelectItems(token.get());
            ParenthesedSelect wrapped = new ParenthesedSelect();
            wrapped.setSelect(source);
            wrapped.setAlias(new Alias(SOURCE_ALIAS));
            wrapper.setFromItem(wrapped);
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
