package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import org.jspecify.annotations.Nullable;

/**
 * A MERGE that JSqlParser cannot read (or would change), fenced by position ({@link MergeSkeleton}) exactly as
 * {@link MergeFencer} fences what it reads, with the same builders printed into fragments and the same refusals:
 * <ul>
 *   <li>{@code THEN UPDATE}: fenced's SET item after the clause's last item ({@link SkeletonFencer#setItem}, the
 *       guard naming the target's row by its qualifier, as {@link UpdateFencer#appendGuardedSet} does for MERGE);</li>
 *   <li>{@code THEN DELETE} (enforce mode): the DELETE's condition ({@link SkeletonFencer#deleteCondition}, from
 *       {@link DeleteFencer#guardedWhere}: {@link Guards#deleteWhere} and the tombstone hand-over, as MergeFencer
 *       builds it) joined to the clause's: {@code AND (c) AND CASE WHEN (c) THEN <check> ELSE FALSE END}, the first
 *       {@code c} the user's own and the second its copy, which must lex as written; {@code AND <check>} without a
 *       condition;</li>
 *   <li>{@code THEN INSERT}: the fence column joins the column list (named from the catalog when there is none,
 *       {@link PositionalColumns}) and the token the VALUES row;</li>
 *   <li>{@code THEN DO NOTHING}: nothing.</li>
 * </ul>
 */
final class MergeByPosition {

    private final SkeletonFencer host;
    private final MergeSkeleton merge;
    private final ProtectedTable table;
    private final FenceContext ctx;

    MergeByPosition(SkeletonFencer host, MergeSkeleton merge, ProtectedTable table, FenceContext ctx) {
        this.host = host;
        this.merge = merge;
        this.table = table;
        this.ctx = ctx;
    }

    /** Puts every action's fragments into {@code fragments}; true when a guard was added, as MergeFencer answers. */
    boolean place(NavigableMap<Integer, SkeletonFencer.Fragment> fragments) throws Refusal {
        refuseUnreachableAfterDelete();
        boolean guarded = false;
        for (MergeSkeleton.Clause clause : merge.clauses()) {
            switch (clause.action()) {
                case DO_NOTHING -> {
                    continue; // writes nothing; the statement's other actions are fenced as always
                }
                case UPDATE -> update(clause, fragments);
                case DELETE -> delete(clause, fragments);
                case INSERT -> insert(clause, fragments);
            }
            guarded |= clause.action() != MergeSkeleton.Action.DELETE || table.mode() == FencingMode.ENFORCE;
        }
        return guarded;
    }

    /** As {@link MergeFencer}'s: a clause after an unconditional DELETE of the same side (INSERTs have their own). */
    private void refuseUnreachableAfterDelete() throws Refusal {
        List<MergeSkeleton.Clause> clauses = merge.clauses();
        for (int i = 0; i < clauses.size(); i++) {
            MergeSkeleton.Clause d = clauses.get(i);
            if (d.action() != MergeSkeleton.Action.DELETE || d.conditional()) {
                continue;
            }
            for (int j = i + 1; j < clauses.size(); j++) {
                if (clauses.get(j).side() == d.side()) {
                    throw new Refusal(
                            table.displayName(),
                            "MERGE with a WHEN clause after an unconditional"
                                    + " WHEN ... THEN DELETE (PostgreSQL rejects it as unreachable)");
                }
            }
        }
    }

    private void update(MergeSkeleton.Clause clause, NavigableMap<Integer, SkeletonFencer.Fragment> fragments)
            throws Refusal {
        refuseFenceColumn(clause.setColumns());
        String relative = ownColumnRead(clause);
        if (relative != null) {
            ctx.relativeUpdateFound(table, relative);
        }
        boolean nullable = ctx.tokenMayBeNull || table.mode() == FencingMode.OBSERVE;
        ctx.tokenRequired |= !nullable;
        fragments.put(
                clause.end(),
                SkeletonFencer.Fragment.shared(SkeletonFencer.setItem(new SkeletonFencer.SetItem(
                        merge.qualifier(),
                        table.column(),
                        table.displayName(),
                        ctx.tokenIndex,
                        table.mode(),
                        nullable))));
    }

    /**
     * An assigned column the clause's SET values read, or null: by token, conservatively (a name spelled as an
     * assigned column, bare or qualified by the target's own name, or the row read as a whole), where the parser's
     * path reads column references; a source column of the same name qualified by the source's name is not the
     * row's own.
     */
    private @Nullable String ownColumnRead(MergeSkeleton.Clause clause) {
        String own = TableName.fold(merge.qualifier());
        for (List<Token> value : clause.setValues()) {
            String wholeRow =
                    ColumnReferences.readsOwnRow(value, clause.setColumns(), merge.qualifier(), host.columnsOf(table));
            if (wholeRow != null) {
                return wholeRow;
            }
            for (int j = 0; j < value.size(); j++) {
                Token t = value.get(j);
                if (!TokenRuns.isName(t) || !clause.setColumns().contains(TableName.fold(t.text()))) {
                    continue;
                }
                boolean qualified = j > 0 && value.get(j - 1).isSymbol(".");
                if (!qualified
                        || j >= 2 && TableName.fold(value.get(j - 2).text()).equals(own)) {
                    return TableName.fold(t.text());
                }
            }
        }
        return null;
    }

    private void delete(MergeSkeleton.Clause clause, NavigableMap<Integer, SkeletonFencer.Fragment> fragments)
            throws Refusal {
        if (table.mode() != FencingMode.ENFORCE) {
            return; // as MergeFencer: nothing to record on a row that goes away
        }
        String condition = clause.conditional() ? host.copied(clause.condStart(), clause.then()) : null;
        String[] around = SkeletonFencer.deleteCondition(
                new SkeletonFencer.DeleteCondition(
                        merge.writtenTable(),
                        merge.qualifier(),
                        table.column(),
                        table.displayName(),
                        ctx.tokenIndex,
                        condition != null,
                        Tombstones.recordsDeletes(table, ctx)),
                table,
                ctx);
        if (condition == null) {
            fragments.put(clause.then(), SkeletonFencer.Fragment.shared(" AND " + around[0]));
            return;
        }
        // AND (c) AND CASE WHEN (c) THEN <check> ELSE FALSE END [AND <hand-over>]: the first c is the user's own
        fragments.put(clause.condStart(), SkeletonFencer.Fragment.beforeToken(around[0]));
        List<Token> copy = SqlLexer.tokenize(condition);
        DeleteFencer.refuseUnrepeatable(copy, DeleteFencer.MERGE_DELETE, "the condition", table, ctx.targets);
        if (!SkeletonFencer.copiesWhere(copy, host.statementTokens(clause.condStart(), clause.then()))) {
            // the check would judge other rows than the clause deletes
            throw new Refusal(table.displayName(), "the MERGE DELETE's condition could not be repeated as written");
        }
        fragments.put(clause.then(), SkeletonFencer.Fragment.repeating(around, condition, copy));
    }

    private void insert(MergeSkeleton.Clause clause, NavigableMap<Integer, SkeletonFencer.Fragment> fragments)
            throws Refusal {
        String token;
        List<String> columns = clause.insertColumns();
        if (columns.isEmpty()) {
            // named from the catalog as MergeFencer names them: INSERT (a, b, "fence") VALUES (..., <checked token>)
            ExpressionList<Column> named = PositionalColumns.name(clause.values(), table, ctx.targets.shapeOf(table));
            token = PositionalColumns.checkedToken(
                            merge.writtenTable(),
                            Objects.requireNonNull(ctx.targets.shapeOf(table), "name() refuses a table with no shape"),
                            ctx.tokenIndex,
                            table.displayName())
                    .toString();
            List<String> folded = new ArrayList<>();
            for (Column c : named) {
                folded.add(TableName.fold(c.getColumnName()));
            }
            refuseFenceColumn(folded);
            ParenthesedExpressionList<Column> list = new ParenthesedExpressionList<>(named);
            list.add(new Column(TableName.quote(table.column())));
            fragments.put(clause.then() + 2, SkeletonFencer.Fragment.shared(" " + list));
        } else {
            token = Guards.tokenText(ctx.tokenIndex);
            refuseFenceColumn(columns);
            fragments.put(
                    clause.columnListEnd(), SkeletonFencer.Fragment.shared(", " + TableName.quote(table.column())));
        }
        if (!columns.isEmpty() && columns.size() != clause.values()) {
            throw new Refusal(
                    table.displayName(),
                    "a MERGE INSERT has " + clause.values() + " values for " + columns.size() + " columns");
        }
        fragments.put(clause.valuesEnd(), SkeletonFencer.Fragment.shared(", " + token));
    }

    private void refuseFenceColumn(List<String> columns) throws Refusal {
        if (columns.contains(table.column())) {
            throw Refusal.setsFenceColumn(table);
        }
    }
}
