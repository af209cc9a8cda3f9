package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.jspecify.annotations.Nullable;

/** UPDATE: adds {@code <column> = <guard>} to the SET list. */
final class UpdateFencer {

    private UpdateFencer() {}

    static void fence(Update update, ProtectedTable table, FenceContext ctx) throws Refusal {
        if (update.getStartJoins() != null && !update.getStartJoins().isEmpty()) {
            throw new Refusal(table.displayName(), "multi-table UPDATE ... JOIN (not PostgreSQL syntax)");
        }
        if (update.getOrderByElements() != null || update.getLimit() != null || update.getOutputClause() != null) {
            throw new Refusal(table.displayName(), "UPDATE with ORDER BY, LIMIT or OUTPUT (not PostgreSQL syntax)");
        }
        String qualifier = FenceContext.qualifier(update.getTable());
        // Without FROM, the SET list sees the target's columns alone, so the guard names the fence column bare:
        // PostgreSQL copies the statement's text on every execution, and each character costs it ~12 instructions.
        boolean onlyTarget = update.getFromItem() == null
                && (update.getJoins() == null || update.getJoins().isEmpty());
        appendGuardedSet(update.getUpdateSets(), table, qualifier, onlyTarget ? null : qualifier, ctx);
    }

    /** Shared with ON CONFLICT DO UPDATE: refuse a SET of the fence column, flag relative updates, add ours. */
    static void appendGuardedSet(List<UpdateSet> sets, ProtectedTable table, String qualifier, FenceContext ctx)
            throws Refusal {
        appendGuardedSet(sets, table, qualifier, qualifier, ctx);
    }

    /**
     * {@code guardQualifier} names the row in the guard: the target's qualifier, or null for a bare column where
     * nothing else in scope can have one of that name (an UPDATE without FROM; not ON CONFLICT, where EXCLUDED has
     * the same columns, nor MERGE, where the source may).
     */
    private static void appendGuardedSet(
            List<UpdateSet> sets,
            ProtectedTable table,
            String qualifier,
            @Nullable String guardQualifier,
            FenceContext ctx)
            throws Refusal {
        List<Column> targets = new ArrayList<>();
        for (UpdateSet set : sets) {
            for (Column c : set.getColumns()) {
                if (TableName.fold(c.getColumnName()).equals(table.column())) {
                    throw Refusal.setsFenceColumn(table);
                }
                targets.add(c);
            }
        }
        TableShape shape = ctx.targets.shapeOf(table);
        for (UpdateSet set : sets) {
            for (Expression value : set.getValues()) {
                String relative = ColumnReferences.readsOwnColumn(
                        value, targets, qualifier, shape == null ? null : shape.columns());
                if (relative != null) {
                    ctx.relativeUpdateFound(table, relative);
                }
            }
        }
        boolean tokenMayBeNull = ctx.tokenMayBeNull || table.mode() == FencingMode.OBSERVE;
        ctx.tokenRequired |= !tokenMayBeNull;
        sets.add(new UpdateSet(
                new Column(TableName.quote(table.column())),
                Guards.setValue(
                        guardQualifier,
                        table.column(),
                        table.displayName(),
                        ctx.tokenIndex,
                        table.mode(),
                        tokenMayBeNull)));
    }
}
