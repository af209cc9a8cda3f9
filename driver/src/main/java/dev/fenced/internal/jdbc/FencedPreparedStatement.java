package dev.fenced.internal.jdbc;

import dev.fenced.UnsupportedStatementException;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.pg.PgStates;
import dev.fenced.internal.sql.RewritePlan;
import java.sql.Array;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A prepared statement for a fenced plan: the SQL sent has token parameters beside the user's, so the
 * text is the same for every token (pgjdbc's statement cache and server-side prepare see one shape).
 * User parameter indexes are mapped onto the statement sent; the token is read from the calling thread
 * and bound when the statement executes. For a plan that needs no fencing, every call goes straight
 * through. A statement fenced refuses, prepared inside {@code Fencing.unfenced}, runs as written only while
 * its thread is still unfenced.
 *
 * <p>Every execution goes through {@link #run}: the plan is checked against the catalog generation (a
 * counter compare; after {@code ALTER TABLE c INHERIT t} a statement prepared before is planned again), the
 * token is bound, the write is counted, a stale refusal translated, and DDL followed by a catalog read.
 */
public class FencedPreparedStatement extends DelegatingPreparedStatement {

    /** Runs one form of {@code execute*()} on the delegate. */
    @FunctionalInterface
    private interface Execution<T> {
        T run() throws SQLException;
    }

    /** The text as the user wrote it; null when it cannot be planned again. */
    private final String sql;

    private RewritePlan plan;
    private long generation;

    protected FencedPreparedStatement(
            FencedConnection owner, PreparedStatement prepared, RewritePlan plan, String sql) {
        super(owner, prepared);
        this.plan = plan;
        this.sql = sql;
        this.generation = owner.generation();
    }

    @Override
    protected int @Nullable [] positions(int index) throws SQLException {
        if (!(plan instanceof RewritePlan.Fenced fenced)) {
            return null;
        }
        int[] at = fenced.delegateIndexes(index);
        if (at == null) {
            // the same message and state pgjdbc gives, with the user's own numbers
            throw new SQLException(
                    "The column index is out of range: " + index + ", number of columns: " + fenced.userParameterCount()
                            + ".",
                    PgStates.INVALID_PARAMETER_VALUE);
        }
        return at;
    }

    /**
     * The plan to run now, with the checks a pass-through text gets when it is planned made again (a write
     * to a relation no catalog read has seen, an SQL {@code EXECUTE}). When the targets changed since it was
     * made, the text is planned again: a plan
     * that sends the same text (pass-through to pass-through or refused, or the same fenced text) is taken
     * over; one that would need a different text than the statement was prepared with is refused, since the
     * parameters already bound belong to the old text.
     */
    private RewritePlan current() throws SQLException {
        if (sql == null) {
            return plan;
        }
        if (plan instanceof RewritePlan.Passthrough) {
            // a relation it writes may have been created since it was prepared (a pool keeps statements long)
            owner.lookUpUnknownTargets(sql);
        }
        long now = owner.generation();
        if (now == generation) {
            if (plan instanceof RewritePlan.Passthrough) {
                owner.checkExecuted(sql); // EXECUTE name: the name may hold another statement by now
            }
            return plan;
        }
        RewritePlan again = owner.plan(sql);
        if (plan instanceof RewritePlan.Fenced was
                && !was.tokenRequired()
                && again instanceof RewritePlan.Fenced fenced
                && fenced.tokenRequired()) {
            again = runtime.forNullToken(fenced, sql); // prepared for a NULL token: keep that text
        }
        boolean neitherFenced = !(again instanceof RewritePlan.Fenced) && !(plan instanceof RewritePlan.Fenced);
        if (neitherFenced || sameText(again, plan)) {
            plan = again;
        } else {
            runtime.tracker().increment(Counter.UNSUPPORTED_REFUSED);
            String table = again instanceof RewritePlan.Protected p
                    ? p.table()
                    : plan instanceof RewritePlan.Protected p ? p.table() : "a protected table";
            throw new UnsupportedStatementException(
                    table,
                    "the catalog changed since this statement was prepared"
                            + " (it now reaches protected rows differently); prepare it again");
        }
        generation = now;
        return plan;
    }

    /** Both fenced, sending one text with the token at the same places (their modes may differ: read at execute). */
    private static boolean sameText(RewritePlan a, RewritePlan b) {
        return a instanceof RewritePlan.Fenced fa
                && b instanceof RewritePlan.Fenced fb
                && fa.sql().equals(fb.sql())
                && Arrays.equals(fa.tokenIndexes(), fb.tokenIndexes());
    }

    /** Binds the token (or NULL) at every token position; returns what was bound. */
    private long bindToken(RewritePlan.Fenced plan) throws SQLException {
        owner.checkLexing(null, plan);
        long token = TokenResolver.resolve(plan, sql, runtime);
        if (token == TokenResolver.NO_TOKEN && plan.tokenRequired()) {
            runtime.tracker().increment(Counter.UNSUPPORTED_REFUSED);
            throw new UnsupportedStatementException(
                    plan.table(),
                    "running without a token (inside"
                            + " Fencing.unfenced) a statement prepared outside it: its text needs a token; prepare it"
                            + " inside the unfenced section");
        }
        for (int index : plan.tokenIndexes()) {
            if (token > 0) {
                prepared.setLong(index, token);
            } else {
                prepared.setNull(index, Types.BIGINT);
            }
        }
        return token;
    }

    /** The one execute path. */
    private <T> T run(Execution<T> execution) throws SQLException {
        RewritePlan plan = current();
        T result;
        if (!(plan instanceof RewritePlan.Fenced fenced)) {
            runtime.refuseUnlessUnfenced(plan);
            result = execution.run();
        } else {
            long token = bindToken(fenced);
            try {
                result = execution.run();
            } catch (SQLException e) {
                throw runtime.writeFailure(e, token);
            }
            runtime.tracker().increment(Counter.WRITES_FENCED);
        }
        afterSchemaChange(plan);
        return result;
    }

    @Override
    public boolean execute() throws SQLException {
        return run(prepared::execute);
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        return FencedResultSet.of(run(prepared::executeQuery), this, owner, sql);
    }

    @Override
    public @Nullable ResultSet getResultSet() throws SQLException {
        return FencedResultSet.wrap(prepared.getResultSet(), this, owner, sql);
    }

    @Override
    public int executeUpdate() throws SQLException {
        return run(prepared::executeUpdate);
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        return run(prepared::executeLargeUpdate);
    }

    @Override
    public void addBatch() throws SQLException {
        RewritePlan plan = current();
        batchedSchemaChange(plan);
        if (!(plan instanceof RewritePlan.Fenced fenced)) {
            runtime.refuseUnlessUnfenced(plan);
            prepared.addBatch();
            return;
        }
        long token = bindToken(fenced);
        prepared.addBatch();
        remember(fenced, token);
    }

    @Override
    public int[] executeBatch() throws SQLException {
        runtime.refuseUnlessUnfenced(current());
        return super.executeBatch();
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        runtime.refuseUnlessUnfenced(current());
        return super.executeLargeBatch();
    }

    @Override
    public void setArray(int index, @Nullable Array x) throws SQLException {
        super.setArray(index, FencedArray.raw(x));
    }

    @Override
    public void setObject(int index, @Nullable Object x) throws SQLException {
        super.setObject(index, FencedArray.raw(x));
    }

    @Override
    public void setObject(int index, @Nullable Object x, int targetSqlType) throws SQLException {
        super.setObject(index, FencedArray.raw(x), targetSqlType);
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        ParameterMetaData meta = prepared.getParameterMetaData();
        return plan instanceof RewritePlan.Fenced fenced ? new FencedParameterMetaData(meta, fenced) : meta;
    }
}
