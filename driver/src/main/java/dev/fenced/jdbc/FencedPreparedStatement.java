package dev.fenced.jdbc;

import dev.fenced.jdbc.delegate.DelegatingPreparedStatement;
import dev.fenced.metrics.FencedMetrics;
import dev.fenced.sql.RewritePlan;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

/**
 * A prepared statement for a fenced plan: the SQL sent has token parameters beside the user's, so the
 * text is the same for every token (pgjdbc's statement cache and server-side prepare see one shape).
 * User parameter indexes are mapped onto the statement sent; the token is read from the calling thread
 * and bound when the statement executes. For a plan that needs no fencing, every call goes straight
 * through. A statement fenced refuses, prepared inside {@code Fencing.unfenced}, runs as written only while
 * its thread is still unfenced.
 */
public class FencedPreparedStatement extends DelegatingPreparedStatement {

    private final RewritePlan plan;
    private final boolean fenced;

    protected FencedPreparedStatement(FencedConnection owner, PreparedStatement prepared, RewritePlan plan) {
        super(owner, prepared);
        this.plan = plan;
        this.fenced = plan.isFenced();
    }

    @Override
    protected int[] positions(int index) throws SQLException {
        if (!fenced) {
            return null;
        }
        int[] at = plan.delegateIndexes(index);
        if (at == null) {
            // the same message and state pgjdbc gives, with the user's own numbers
            throw new SQLException("The column index is out of range: " + index + ", number of columns: "
                    + plan.userParameterCount() + ".", "22023");
        }
        return at;
    }

    /** Binds the token (or NULL) at every token position; returns what was bound. */
    private long bindToken() throws SQLException {
        owner.checkLexing(null, plan);
        long token = TokenResolver.resolve(plan, runtime);
        for (int index : plan.tokenIndexes()) {
            if (token > 0) {
                prepared.setLong(index, token);
            } else {
                prepared.setNull(index, Types.BIGINT);
            }
        }
        return token;
    }

    @Override
    public boolean execute() throws SQLException {
        if (!fenced) {
            runtime.refuseUnlessUnfenced(plan);
            boolean result = prepared.execute();
            afterSchemaChange(plan);
            return result;
        }
        long token = bindToken();
        try {
            boolean result = prepared.execute();
            FencedMetrics.WRITES_FENCED.increment();
            return result;
        } catch (SQLException e) {
            throw StaleWrites.translate(e, token);
        }
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        if (!fenced) {
            runtime.refuseUnlessUnfenced(plan);
            return FencedResultSet.wrap(prepared.executeQuery(), this);
        }
        long token = bindToken();
        try {
            ResultSet rs = prepared.executeQuery();
            FencedMetrics.WRITES_FENCED.increment();
            return FencedResultSet.wrap(rs, this);
        } catch (SQLException e) {
            throw StaleWrites.translate(e, token);
        }
    }

    @Override
    public int executeUpdate() throws SQLException {
        if (!fenced) {
            runtime.refuseUnlessUnfenced(plan);
            int count = prepared.executeUpdate();
            afterSchemaChange(plan);
            return count;
        }
        long token = bindToken();
        try {
            int count = prepared.executeUpdate();
            FencedMetrics.WRITES_FENCED.increment();
            return count;
        } catch (SQLException e) {
            throw StaleWrites.translate(e, token);
        }
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        if (!fenced) {
            runtime.refuseUnlessUnfenced(plan);
            long count = prepared.executeLargeUpdate();
            afterSchemaChange(plan);
            return count;
        }
        long token = bindToken();
        try {
            long count = prepared.executeLargeUpdate();
            FencedMetrics.WRITES_FENCED.increment();
            return count;
        } catch (SQLException e) {
            throw StaleWrites.translate(e, token);
        }
    }

    @Override
    public void addBatch() throws SQLException {
        if (!fenced) {
            runtime.refuseUnlessUnfenced(plan);
            prepared.addBatch();
            return;
        }
        long token = bindToken();
        prepared.addBatch();
        remember(plan, token);
    }

    @Override
    public int[] executeBatch() throws SQLException {
        runtime.refuseUnlessUnfenced(plan);
        return super.executeBatch();
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        runtime.refuseUnlessUnfenced(plan);
        return super.executeLargeBatch();
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        ParameterMetaData meta = prepared.getParameterMetaData();
        return fenced ? new FencedParameterMetaData(meta, plan) : meta;
    }
}
