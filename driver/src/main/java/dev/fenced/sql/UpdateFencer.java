package dev.fenced.sql;

import dev.fenced.FencingMode;
import dev.fenced.config.ProtectedTable;
import dev.fenced.config.TableName;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

/** UPDATE: adds {@code <column> = <guard>} to the SET list. */
final class UpdateFencer {

    private UpdateFencer() {
    }

    static void fence(Update update, ProtectedTable table, FenceContext ctx) throws Refusal {
        if (update.getStartJoins() != null && !update.getStartJoins().isEmpty()) {
            throw new Refusal(table.displayName(), "multi-table UPDATE ... JOIN (not PostgreSQL syntax)");
        }
        if (update.getOrderByElements() != null || update.getLimit() != null || update.getOutputClause() != null) {
            throw new Refusal(table.displayName(), "UPDATE with ORDER BY, LIMIT or OUTPUT (not PostgreSQL syntax)");
        }
        appendGuardedSet(update.getUpdateSets(), table, FenceContext.qualifier(update.getTable()), ctx);
    }

    /** Shared with ON CONFLICT DO UPDATE: refuse a SET of the fence column, flag relative updates, add ours. */
    static void appendGuardedSet(List<UpdateSet> sets, ProtectedTable table, String qualifier, FenceContext ctx)
            throws Refusal {
        List<Column> targets = new ArrayList<>();
        for (UpdateSet set : sets) {
            for (Column c : set.getColumns()) {
                if (TableName.fold(c.getColumnName()).equals(table.column())) {
                    throw new Refusal(table.displayName(), "the statement sets the fence column " + table.column()
                            + " itself; the token is not the writer's to choose");
                }
                targets.add(c);
            }
        }
        for (UpdateSet set : sets) {
            for (Expression value : set.getValues()) {
                String relative = ColumnReferences.readsOwnColumn(value, targets, qualifier);
                if (relative != null) {
                    ctx.relativeUpdateFound(table, relative);
                }
            }
        }
        boolean tokenMayBeNull = ctx.tokenMayBeNull || table.mode() == FencingMode.OBSERVE;
        ctx.tokenRequired |= !tokenMayBeNull;
        sets.add(new UpdateSet(new Column(TableName.quote(table.column())), Guards.setValue(qualifier,
                table.column(), table.displayName(), ctx.tokenIndex, table.mode(), tokenMayBeNull)));
    }
}
