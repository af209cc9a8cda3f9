package dev.fenced.internal.sql;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.jspecify.annotations.Nullable;

/**
 * The DELETE half of tombstones (semantics 9). The tombstones themselves are written by the check trigger that
 * {@code dev.fenced.internal.jdbc.TombstoneSchema} creates, which also fires {@code AFTER DELETE ... FOR EACH ROW}:
 * it sees each row version the DELETE actually removed, so the key it records is the key the row had when it went,
 * also when a READ COMMITTED DELETE waited on a concurrent UPDATE that moved the row to a new key and then deleted
 * it under that key (a query of the DELETE's own snapshot would see the old key). What the trigger cannot see is
 * the deleter's token: a fenced DELETE hands it over in a transaction-local setting, set by one more condition
 * behind its guarded WHERE:
 *
 * <pre>
 * DELETE FROM totals AS t WHERE &lt;the DELETE's guarded WHERE&gt; AND (SELECT CAST(CASE WHEN EXISTS (&lt;the check
 *     trigger is on totals, enabled, fires on DELETE&gt;) AND pg_catalog.set_config('fenced.deleter',
 *     pg_catalog.concat_ws('/', pg_catalog.statement_timestamp(), CAST(? AS bigint)), true) IS NOT NULL
 *     THEN 'true' ELSE '&lt;failure text&gt;' END AS boolean))
 * </pre>
 *
 * An uncorrelated subquery, so PostgreSQL evaluates it once, before the first row is deleted (every deleted row
 * passed this condition), and the AFTER triggers fire at the end of the statement. The value carries the
 * statement's start: the trigger records only when it matches its own statement's, so a later statement of the
 * same transaction (an unfenced DELETE inside {@code Fencing.unfenced}) records nothing. The DELETE keeps its own
 * text, update count and RETURNING, and is evaluated once.
 */
public final class Tombstones {

    /** The insert check's trigger name (the same as {@code TombstoneSchema.TRIGGER}, which creates it). */
    public static final String TRIGGER = "fenced_tombstone_check";

    /**
     * The transaction-local setting a fenced DELETE hands its token to the trigger in:
     * {@code <statement_timestamp()>/<token>}.
     */
    public static final String DELETER_SETTING = "fenced.deleter";

    /** PostgreSQL's {@code tgtype} bit for a trigger that fires on DELETE ({@code TRIGGER_TYPE_DELETE}). */
    public static final int DELETE_EVENT = 8;

    private Tombstones() {}

    /**
     * The function beside the tombstone table {@code table} that builds a row's tombstone key with fixed settings
     * ({@code <table>_key}); the check trigger uses it for inserts and deletes alike.
     */
    public static TableName keyFunction(TableName table) {
        return new TableName(table.schema(), table.name() + "_key");
    }

    /**
     * What a fenced DELETE (or MERGE's {@code THEN DELETE}) of {@code table}, written as {@code writtenTable}, adds to
     * its condition so that the rows it removes are tombstoned: the token handed over to the check trigger; null when
     * the table keeps no tombstones. Refused when the last catalog read did not show the table's key.
     */
    static @Nullable Expression recordDeletes(String writtenTable, ProtectedTable table, FenceContext ctx)
            throws Refusal {
        return recordsDeletes(table, ctx) ? handOverToken(writtenTable, ctx.tokenIndex, table.displayName()) : null;
    }

    /**
     * Whether a fenced DELETE of {@code table} hands its token over ({@link #recordDeletes} is not null): the table
     * keeps tombstones. Refused when the last catalog read did not show the table's key.
     */
    static boolean recordsDeletes(ProtectedTable table, FenceContext ctx) throws Refusal {
        if (ctx.targets.tombstoneTable() == null) {
            return false;
        }
        TableShape shape = ctx.targets.shapeOf(table);
        if (shape == null) {
            throw new Refusal(
                    table.displayName(),
                    "DELETE of a table the last catalog read gave no single primary"
                            + " key for (several tables match the name, or it did not exist then), so its tombstones cannot"
                            + " be recorded; qualify the name or read the catalog again");
        }
        return shape.tombstoned();
    }

    /**
     * The condition a fenced DELETE of a table with tombstones gets behind its guarded WHERE (see the class
     * comment): hands the token {@code ?<tokenIndex>} to the trigger, or fails the DELETE when the trigger is not
     * there to record the tombstones.
     */
    static Expression handOverToken(String writtenTable, int tokenIndex, String tableLabel) throws Refusal {
        Expression setting = new Function(
                "pg_catalog.set_config",
                new StringValue(DELETER_SETTING),
                new Function("pg_catalog.concat_ws", new StringValue("/"), statementStart(), Guards.token(tokenIndex)),
                new BooleanValue(true));
        Expression handedOver =
                new AndExpression(checkInPlace(writtenTable, tableLabel), new IsNullExpression(setting).withNot(true));
        // the failing text is a branch of the CASE, not a constant cast PostgreSQL would fold (and fail) at plan time
        Expression once = new CastExpression(
                "CAST",
                new CaseExpression(new WhenClause(handedOver, new StringValue("true")))
                        .withElseExpression(new StringValue(missingCheck(tableLabel))),
                "boolean");
        PlainSelect select = new PlainSelect();
        select.addSelectItems(once);
        return new ParenthesedSelect().withSelect(select);
    }

    private static Expression statementStart() {
        try {
            return BoundedParser.parseOwnExpression("pg_catalog.statement_timestamp()");
        } catch (BoundedParser.ParseFailure e) {
            throw new IllegalStateException("fenced cannot read its own statement_timestamp() call", e);
        }
    }

    /**
     * Whether the relation deleted from has its check trigger, enabled and firing on DELETE: a table dropped and
     * created again by another process since the catalog read has lost its trigger, so nothing would record the
     * rows this DELETE removes and a stale holder could insert them again; the DELETE fails rather than that.
     */
    private static Expression checkInPlace(String writtenTable, String tableLabel) throws Refusal {
        // operators and types are qualified (as functions: JSqlParser cannot read OPERATOR(...)), so no search_path
        // can change what the check means
        String sql = "EXISTS (SELECT 1 FROM pg_catalog.pg_trigger fenced_trg WHERE"
                + " pg_catalog.oideq(fenced_trg.tgrelid, CAST('" + writtenTable.replace("'", "''")
                + "' AS pg_catalog.regclass)) AND pg_catalog.nameeq(fenced_trg.tgname, '" + TRIGGER + "')"
                + " AND pg_catalog.charne(fenced_trg.tgenabled, 'D') AND pg_catalog.int2ne(pg_catalog.int2and("
                + "fenced_trg.tgtype, CAST(" + DELETE_EVENT + " AS pg_catalog.int2)), CAST(0 AS pg_catalog.int2)))";
        try {
            return BoundedParser.parseOwnExpression(sql);
        } catch (BoundedParser.ParseFailure e) {
            throw new Refusal(tableLabel, "DELETE whose table name fenced cannot check the tombstone trigger of");
        }
    }

    /** The failure text (StaleWrites reads it back into {@code FencingException}), quoted for a string constant. */
    private static String missingCheck(String tableLabel) {
        return ("fenced: the tombstone check trigger of " + tableLabel
                        + " is missing or disabled (the table was created again since fenced"
                        + " read the catalog?); a DELETE is refused until it is read again")
                .replace("'", "''");
    }
}
