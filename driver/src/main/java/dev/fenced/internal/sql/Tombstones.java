package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.insert.InsertConflictAction;
import net.sf.jsqlparser.statement.insert.InsertConflictTarget;
import net.sf.jsqlparser.statement.insert.ParenthesedInsert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Distinct;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

/**
 * The DELETE half of tombstones (semantics 9; the INSERT half is the database check that
 * {@code dev.fenced.internal.jdbc.TombstoneSchema} creates). A fenced DELETE of a table with a primary key gets a
 * data-modifying CTE on its statement that records one tombstone per row it deletes, with the deleter's token:
 *
 * <pre>
 * WITH fenced_tombstones_1 AS (INSERT INTO fenced_tombstone AS fenced_tomb (relation, key, token)
 *     SELECT DISTINCT 'totals', fenced_tombstone_key(t.*, 'id'), CAST(? AS bigint) FROM totals AS t [, USING items]
 *     WHERE &lt;the DELETE's guarded WHERE&gt; AND CAST(? AS bigint) IS NOT NULL
 *     ON CONFLICT (relation, key) DO UPDATE SET token = GREATEST(fenced_tomb.token, EXCLUDED.token))
 * DELETE FROM totals AS t [USING ...] WHERE &lt;the DELETE's guarded WHERE&gt;
 * </pre>
 *
 * Same statement, so one round trip and atomic: the tombstones commit exactly when the DELETE does. Both parts
 * read the same snapshot, so the CTE selects the rows the DELETE finds; a row a concurrent writer changed since
 * is re-checked by the DELETE (a newer token fails the whole statement, tombstones included) and may then stay,
 * in which case its tombstone is recorded needlessly: that only refuses inserts of a key that exists anyway by
 * holders older than this one. The DELETE's own statement keeps its update count and RETURNING.
 */
public final class Tombstones {

    static final String CTE_PREFIX = "fenced_tombstones_";
    /** The insert check's trigger name (the same as {@code TombstoneSchema.TRIGGER}, which creates it). */
    public static final String TRIGGER = "fenced_tombstone_check";

    private static final String TOMB_ALIAS = "fenced_tomb";

    private Tombstones() {}

    /**
     * The function beside the tombstone table {@code table} that builds a row's tombstone key with fixed settings
     * ({@code <table>_key}); the DELETE here and the insert check in {@code TombstoneSchema} both use it.
     */
    public static TableName keyFunction(TableName table) {
        return new TableName(table.schema(), table.name() + "_key");
    }

    /**
     * Adds to {@code top} (the statement the DELETE is or is inside of: data-modifying CTEs must be at the top
     * level) the CTE recording tombstones for the rows {@code delete} removes; {@code where} is the DELETE's own
     * WHERE, without the stale check (a row with a newer token fails the DELETE, and with it the whole statement).
     */
    static void record(
            Statement top,
            Delete delete,
            Expression where,
            TableShape shape,
            TableName tombstoneTable,
            int tokenIndex,
            String tableLabel)
            throws Refusal {
        String qualifier = FenceContext.qualifier(delete.getTable());
        List<Expression> key = new ArrayList<>();
        key.add(new AllTableColumns(new Table(qualifier)));
        for (String column : shape.primaryKey()) {
            key.add(new StringValue(column.replace("'", "''")));
        }
        TableName keyFunction = keyFunction(tombstoneTable);
        Function keyOf = new Function(keyFunction.toString(), key.toArray(new Expression[0]));
        PlainSelect rows = new PlainSelect();
        rows.setDistinct(new Distinct());
        rows.addSelectItems(
                new StringValue(shape.tombstoneLabel().replace("'", "''")), keyOf, Guards.token(tokenIndex));
        rows.setFromItem(StarTable.plain(delete.getTable()));
        List<Join> joins = new ArrayList<>();
        if (delete.getUsingFromItemList() != null) {
            for (FromItem using : delete.getUsingFromItemList()) {
                joins.add(new Join().withSimple(true).setFromItem(using));
            }
        }
        if (delete.getJoins() != null) {
            joins.addAll(delete.getJoins());
        }
        if (!joins.isEmpty()) {
            rows.setJoins(joins);
        }
        Expression tokenGiven = new AndExpression(
                new IsNullExpression(Guards.token(tokenIndex)).withNot(true),
                checkInPlace(StarTable.plain(delete.getTable()).getFullyQualifiedName(), tableLabel));
        rows.setWhere(
                where == null ? tokenGiven : new AndExpression(new ParenthesedExpressionList<>(where), tokenGiven));

        Insert insert = new Insert();
        Table tomb = new Table(
                tombstoneTable.schema() == null ? null : TableName.quote(tombstoneTable.schema()),
                TableName.quote(tombstoneTable.name()));
        tomb.setAlias(new Alias(TOMB_ALIAS, true));
        insert.setTable(tomb);
        insert.setColumns(new ExpressionList<>(new Column("relation"), new Column("key"), new Column("token")));
        insert.setSelect(rows);
        InsertConflictTarget target = new InsertConflictTarget();
        target.addIndexColumnName("relation");
        target.addIndexColumnName("key");
        insert.setConflictTarget(target);
        InsertConflictAction action = new InsertConflictAction(ConflictActionType.DO_UPDATE);
        action.addUpdateSet(new UpdateSet(
                new Column("token"),
                new Function(
                        "GREATEST",
                        new Column(new Table(TOMB_ALIAS), "token"),
                        new Column(new Table("EXCLUDED"), "token"))));
        insert.setConflictAction(action);

        List<WithItem<?>> with = withItems(top, tableLabel);
        WithItem<ParenthesedInsert> item = new WithItem<>(
                new ParenthesedInsert().withInsert(insert), new Alias(CTE_PREFIX + (with.size() + 1), false));
        with.add(item);
    }

    /**
     * True, or a failure naming the table, when the relation deleted from has no enabled insert check: a table
     * dropped and created again by another process since the catalog read has lost its trigger, so a stale holder
     * could insert the rows this DELETE removes; the DELETE fails rather than leave tombstones nothing reads.
     * Uncorrelated, so PostgreSQL evaluates it once per statement.
     */
    private static Expression checkInPlace(String writtenTable, String tableLabel) throws Refusal {
        // the failing text is a branch of the CASE, not a constant cast PostgreSQL would fold (and fail) at plan time;
        // operators and types are qualified (as functions: JSqlParser cannot read OPERATOR(...)), so no search_path
        // can change what the check means
        String sql = "CAST(CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger fenced_trg WHERE"
                + " pg_catalog.oideq(fenced_trg.tgrelid, CAST('" + writtenTable.replace("'", "''")
                + "' AS pg_catalog.regclass)) AND pg_catalog.nameeq(fenced_trg.tgname, '" + TRIGGER + "')"
                + " AND pg_catalog.charne(fenced_trg.tgenabled, 'D')) THEN 'true' ELSE 'fenced: the tombstone"
                + " check trigger of "
                + tableLabel.replace("'", "''")
                + " is missing or disabled (the table was created again since fenced"
                + " read the catalog?); a DELETE is refused until it is read again' END AS boolean)";
        try {
            return BoundedParser.parseOwnExpression(sql);
        } catch (BoundedParser.ParseFailure e) {
            throw new Refusal(tableLabel, "DELETE whose table name fenced cannot check the tombstone trigger of");
        }
    }

    /** The top statement's WITH list, made when it has none. */
    private static List<WithItem<?>> withItems(Statement top, String tableLabel) throws Refusal {
        List<WithItem<?>> list;
        if (top instanceof Delete d) {
            list = d.getWithItemsList();
            if (list == null) {
                d.setWithItemsList(list = new ArrayList<>());
            }
        } else if (top instanceof Update u) {
            list = u.getWithItemsList();
            if (list == null) {
                u.setWithItemsList(list = new ArrayList<>());
            }
        } else if (top instanceof Insert i) {
            list = i.getWithItemsList();
            if (list == null) {
                i.setWithItemsList(list = new ArrayList<>());
            }
        } else if (top instanceof Select s) {
            list = s.getWithItemsList();
            if (list == null) {
                s.setWithItemsList(list = new ArrayList<>());
            }
        } else if (top instanceof Merge m) {
            list = m.getWithItemsList();
            if (list == null) {
                m.setWithItemsList(list = new ArrayList<>());
            }
        } else {
            throw new Refusal(
                    tableLabel,
                    "a DELETE inside " + top.getClass().getSimpleName() + " (its tombstones"
                            + " cannot be recorded there)");
        }
        return list;
    }
}
