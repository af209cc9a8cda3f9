package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.merge.MergeDelete;
import net.sf.jsqlparser.statement.merge.MergeInsert;
import net.sf.jsqlparser.statement.merge.MergeOperation;
import net.sf.jsqlparser.statement.merge.MergeSide;
import net.sf.jsqlparser.statement.merge.MergeUpdate;

/**
 * MERGE into a protected table, each action fenced as its own statement kind would be:
 * <ul>
 *   <li>{@code WHEN MATCHED} / {@code WHEN NOT MATCHED BY SOURCE ... THEN UPDATE}: the guarded SET of an UPDATE,
 *       evaluated only for rows the action changes, and again on the newest row version under READ COMMITTED;</li>
 *   <li>{@code ... THEN DELETE}: the DELETE guard joins the action's condition,
 *       {@code WHEN MATCHED AND (c) AND CASE WHEN (c) THEN <check> ELSE FALSE END}. The check is TRUE or fails the
 *       statement, never FALSE, so no row falls through to a later WHEN clause because of it; the CASE keeps it off
 *       rows the condition does not pick;</li>
 *   <li>{@code WHEN NOT MATCHED THEN INSERT}: the fence column and the token join the column list and VALUES (a
 *       column-less INSERT is named from the catalog first; {@code DEFAULT VALUES} becomes the fence column alone);
 *       the tombstone check on the table covers it;</li>
 *   <li>{@code ... THEN DO NOTHING}: writes nothing, so it gets nothing ({@link MergePlaceholders} reads it and
 *       the DEFAULT VALUES above for JSqlParser).</li>
 * </ul>
 * Any stale row fails the whole statement, so a stale MERGE changes nothing, not even its inserts. What JSqlParser
 * reads from other dialects (Oracle's {@code UPDATE ... WHERE} and {@code DELETE WHERE}) is refused.
 */
final class MergeFencer {

    private MergeFencer() {}

    /**
     * Fences every action of {@code merge}; true when a guard was added (false: every action is DO NOTHING).
     *
     * @param with the queries of the WITH before the MERGE ({@link WithQuery}), which a DELETE's condition may read
     */
    static boolean fence(Merge merge, ProtectedTable table, FenceContext ctx, List<WithQuery> with) throws Refusal {
        if (merge.getOperations() == null || merge.getOperations().isEmpty()) {
            throw new Refusal(table.displayName(), "MERGE without WHEN clauses fenced can read");
        }
        String qualifier = FenceContext.qualifier(merge.getTable());
        refuseUnreachableAfterDelete(merge, table);
        boolean guarded = false;
        for (MergeOperation op : merge.getOperations()) {
            if (MergePlaceholders.isDoNothing(op)) {
                continue; // writes nothing; the statement's other actions are fenced as always
            }
            if (MergePlaceholders.isDefaultValues(op) && !(op instanceof MergeInsert)) {
                throw new Refusal(table.displayName(), "MERGE ... WHEN MATCHED THEN INSERT (PostgreSQL rejects it)");
            }
            guarded |= !(op instanceof MergeDelete) || table.mode() == FencingMode.ENFORCE;
            if (op instanceof MergeUpdate update) {
                if (update.getWhereCondition() != null || update.getDeleteWhereCondition() != null) {
                    throw new Refusal(table.displayName(), "MERGE ... UPDATE ... WHERE (not PostgreSQL syntax)");
                }
                UpdateFencer.appendGuardedSet(update.getUpdateSets(), table, qualifier, ctx);
            } else if (op instanceof MergeDelete delete) {
                if (table.mode() == FencingMode.ENFORCE) {
                    if (delete.getAndPredicate() != null) {
                        List<Token> condition =
                                SqlLexer.tokenize(delete.getAndPredicate().toString());
                        DeleteFencer.refuseUnrepeatable(
                                condition, DeleteFencer.MERGE_DELETE, "the condition", table, ctx.targets);
                        WithQuery.refuseUnrepeatable(
                                with, condition, DeleteFencer.MERGE_DELETE, "the condition", table, ctx.targets);
                    }
                    delete.setAndPredicate(Guards.deleteWhere(
                            delete.getAndPredicate(), qualifier, table.column(), table.displayName(), ctx.tokenIndex));
                    // the rows it deletes are tombstoned by the check trigger, as for a DELETE
                    Expression handOver = Tombstones.recordDeletes(
                            StarTable.plain(merge.getTable()).getFullyQualifiedName(), table, ctx);
                    if (handOver != null) {
                        delete.setAndPredicate(new AndExpression(delete.getAndPredicate(), handOver));
                    }
                }
            } else if (op instanceof MergeInsert insert) {
                fenceInsert(insert, merge.getTable().getFullyQualifiedName(), table, ctx);
            } else {
                throw new Refusal(table.displayName(), "a MERGE action fenced does not know (" + op + ")");
            }
        }
        return guarded;
    }

    /**
     * PostgreSQL rejects a WHEN clause after an unconditional one of the same kind. The guard gives an
     * unconditional DELETE a condition, which would make such a MERGE run instead of failing: refused, with
     * PostgreSQL's own reason, so the fenced statement never means more than the original.
     */
    private static void refuseUnreachableAfterDelete(Merge merge, ProtectedTable table) throws Refusal {
        List<MergeOperation> ops = merge.getOperations();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i) instanceof MergeDelete d && d.getAndPredicate() == null) {
                for (int j = i + 1; j < ops.size(); j++) {
                    if (!(ops.get(j) instanceof MergeInsert)
                            && bySource(ops.get(j)) == (d.getSide() == MergeSide.SOURCE)) {
                        throw new Refusal(
                                table.displayName(),
                                "MERGE with a WHEN clause after an unconditional"
                                        + " WHEN ... THEN DELETE (PostgreSQL rejects it as unreachable)");
                    }
                }
            }
        }
    }

    private static boolean bySource(MergeOperation op) {
        return op instanceof MergeUpdate u
                ? u.getSide() == MergeSide.SOURCE
                : op instanceof MergeDelete d && d.getSide() == MergeSide.SOURCE;
    }

    /** For the re-parse check: every action carries its part of the fence. */
    static boolean carriesFence(Merge merge, ProtectedTable table) {
        if (merge.getOperations() == null) {
            return false;
        }
        for (MergeOperation op : merge.getOperations()) {
            if (MergePlaceholders.isDoNothing(op)) {
                continue;
            }
            if (op instanceof MergeUpdate u) {
                var sets = u.getUpdateSets();
                if (sets.isEmpty()
                        || !TableName.fold(sets.get(sets.size() - 1)
                                        .getColumns()
                                        .get(0)
                                        .getColumnName())
                                .equals(table.column())) {
                    return false;
                }
            } else if (op instanceof MergeInsert i) {
                if (i.getColumns() == null
                        || i.getColumns().stream()
                                .noneMatch(
                                        c -> TableName.fold(c.getColumnName()).equals(table.column()))) {
                    return false;
                }
            } else if (op instanceof MergeDelete d) {
                if (table.mode() == FencingMode.ENFORCE
                        && (d.getAndPredicate() == null
                                || !d.getAndPredicate().toString().contains(Guards.MARKER))) {
                    return false;
                }
            } else {
                return false;
            }
        }
        return true;
    }

    private static void fenceInsert(MergeInsert insert, String writtenTable, ProtectedTable table, FenceContext ctx)
            throws Refusal {
        if (insert.getWhereCondition() != null) {
            throw new Refusal(table.displayName(), "MERGE ... INSERT ... WHERE (not PostgreSQL syntax)");
        }
        if (MergePlaceholders.isDefaultValues(insert)) {
            // INSERT DEFAULT VALUES becomes INSERT (<fence column>) VALUES (<token>): every other column still
            // takes its default, as with a plain INSERT ... DEFAULT VALUES
            insert.setColumns(new ParenthesedExpressionList<>(new Column(TableName.quote(table.column()))));
            insert.setValues(new ParenthesedExpressionList<>(Guards.token(ctx.tokenIndex)));
            return;
        }
        ExpressionList<Expression> values = insert.getValues();
        if (values == null || values.isEmpty()) {
            throw new Refusal(table.displayName(), "MERGE ... INSERT without VALUES");
        }
        ExpressionList<Column> columns = insert.getColumns();
        Expression token = Guards.token(ctx.tokenIndex);
        if (columns == null || columns.isEmpty()) {
            // printed as INSERT (a, b) VALUES ...: the list must be the parenthesised kind
            columns = new ParenthesedExpressionList<>(
                    PositionalColumns.name(values.size(), table, ctx.targets.shapeOf(table)));
            insert.setColumns(columns);
            token = PositionalColumns.checkedToken(
                    writtenTable,
                    java.util.Objects.requireNonNull(
                            ctx.targets.shapeOf(table), "name() refuses a table with no shape"),
                    ctx.tokenIndex,
                    table.displayName());
        }
        for (Column c : columns) {
            if (TableName.fold(c.getColumnName()).equals(table.column())) {
                throw Refusal.setsFenceColumn(table);
            }
        }
        if (columns.size() != values.size()) {
            throw new Refusal(
                    table.displayName(),
                    "a MERGE INSERT has " + values.size() + " values for " + columns.size() + " columns");
        }
        columns.add(new Column(TableName.quote(table.column())));
        values.add(token);
    }
}
