package dev.fenced.internal.jdbc;

import dev.fenced.FencingMode;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.sql.RewritePlan;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;

/**
 * A pgjdbc connection whose statements are fenced. Statements, prepared statements and metadata come
 * back wrapped, so nothing hands out the raw connection; {@code unwrap(PGConnection.class)} still
 * reaches pgjdbc (whatever is done through that object bypasses fencing).
 */
public final class FencedConnection extends DelegatingConnection {

    private static final System.Logger LOG = Logs.get("dev.fenced.jdbc");

    private final FencedRuntime runtime;
    private final ConformingStrings conformingStrings;

    FencedConnection(Connection connection, FencedRuntime runtime) throws SQLException {
        super(connection);
        this.runtime = runtime;
        this.conformingStrings = ConformingStrings.atConnect(
                connection, runtime.config().tables().stream().anyMatch(t -> t.mode() == FencingMode.ENFORCE));
    }

    /** Before every execution of {@code plan} ({@code sql} when it is new text): see {@link ConformingStrings}. */
    void checkLexing(@Nullable String sql, RewritePlan plan) throws SQLException {
        conformingStrings.check(sql, plan);
    }

    FencedRuntime runtime() {
        return runtime;
    }

    /** True after a catalog read inside a transaction: read again, committed, once it ends. */
    private boolean readAtTransactionEnd;

    /**
     * The plan for {@code sql}, refusals thrown; reads the catalog again first when it is due, or when the
     * text writes a relation the last read did not see; an SQL {@code EXECUTE} of a prepared write is refused.
     */
    RewritePlan plan(String sql) throws SQLException {
        readAtTransactionEnd |= runtime.refreshIfDue(connection);
        RewritePlan plan = runtime.planOrRefuse(sql);
        if (plan instanceof RewritePlan.Passthrough) {
            long generation = runtime.generation();
            lookUpUnknownTargets(sql);
            if (runtime.generation() != generation) {
                plan = runtime.planOrRefuse(sql);
            }
        }
        if (plan instanceof RewritePlan.Passthrough) {
            checkExecuted(sql);
        }
        checkLexing(sql, plan);
        return plan;
    }

    /**
     * For a pass-through text: a relation it writes that no catalog read has seen is looked up (the catalog
     * generation moves when that changes the targets). Also run each time a prepared statement executes: the
     * relation may have been created since it was prepared.
     */
    void lookUpUnknownTargets(String sql) throws SQLException {
        readAtTransactionEnd |= runtime.lookUpUnknownTargets(sql, connection);
    }

    /**
     * For a pass-through text: an SQL {@code EXECUTE} of a prepared write is refused. Also run each time a
     * prepared statement executes: the name may have been prepared again since.
     */
    void checkExecuted(String sql) throws SQLException {
        runtime.checkExecuted(sql, connection);
    }

    /** The catalog generation plans are made at now. */
    long generation() {
        return runtime.generation();
    }

    /**
     * After DDL naming a protected table: what is protected is read again before anything else runs. Inside
     * a transaction the DDL may still roll back, so only what it adds is learned until the transaction ends.
     */
    void schemaChanged() throws SQLException {
        boolean committed = connection.getAutoCommit();
        runtime.refresh(connection, committed);
        readAtTransactionEnd |= !committed;
    }

    /** Refuses an updatable result set's own row write over a protected table (see {@link FencedResultSet}). */
    void checkRowWrite(@Nullable String query, String operation) throws SQLException {
        readAtTransactionEnd |= runtime.checkRowWrite(query, operation, connection);
    }

    /** Once a transaction that ran DDL ends, the catalog is read again: now only committed state is there. */
    private void transactionEnded() throws SQLException {
        if (!readAtTransactionEnd) {
            return;
        }
        try {
            runtime.refresh(connection, true);
            if (!connection.getAutoCommit()) {
                connection.commit(); // ends the read-only transaction the read began
            }
            readAtTransactionEnd = false;
        } catch (SQLException e) {
            // the transaction itself ended as asked; what was learned inside it stays (it only adds), and the
            // committed read is tried again at the next transaction end
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: could not read the catalog after the transaction ended;" + " keeping what it learned: "
                            + e.getMessage());
        }
    }

    @Override
    public void commit() throws SQLException {
        connection.commit();
        transactionEnded();
    }

    @Override
    public void rollback() throws SQLException {
        connection.rollback();
        transactionEnded();
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        boolean ends = autoCommit && !connection.getAutoCommit();
        connection.setAutoCommit(autoCommit);
        if (ends) {
            transactionEnded();
        }
    }

    @Override
    public java.sql.Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        return new FencedArray(connection.createArrayOf(typeName, elements), this);
    }

    @Override
    public Statement createStatement() throws SQLException {
        return new FencedStatement(this, connection.createStatement());
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
        return new FencedStatement(this, connection.createStatement(resultSetType, resultSetConcurrency));
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
            throws SQLException {
        return new FencedStatement(
                this, connection.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        RewritePlan plan = preparedPlan(sql);
        return new FencedPreparedStatement(this, connection.prepareStatement(sqlFor(plan, sql)), plan, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        RewritePlan plan = preparedPlan(sql);
        return new FencedPreparedStatement(
                this, connection.prepareStatement(sqlFor(plan, sql), autoGeneratedKeys), plan, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        RewritePlan plan = preparedPlan(sql);
        return new FencedPreparedStatement(
                this, connection.prepareStatement(sqlFor(plan, sql), columnIndexes), plan, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        RewritePlan plan = preparedPlan(sql);
        return new FencedPreparedStatement(
                this, connection.prepareStatement(sqlFor(plan, sql), columnNames), plan, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        RewritePlan plan = preparedPlan(sql);
        return new FencedPreparedStatement(
                this, connection.prepareStatement(sqlFor(plan, sql), resultSetType, resultSetConcurrency), plan, sql);
    }

    @Override
    public PreparedStatement prepareStatement(
            String sql, int resultSetType, int resultSetConcurrency, int resultSetHoldability) throws SQLException {
        RewritePlan plan = preparedPlan(sql);
        return new FencedPreparedStatement(
                this,
                connection.prepareStatement(
                        sqlFor(plan, sql), resultSetType, resultSetConcurrency, resultSetHoldability),
                plan,
                sql);
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        RewritePlan plan = callable(sql);
        return new FencedCallableStatement(this, connection.prepareCall(sql), plan, sql);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
        RewritePlan plan = callable(sql);
        return new FencedCallableStatement(
                this, connection.prepareCall(sql, resultSetType, resultSetConcurrency), plan, sql);
    }

    @Override
    public CallableStatement prepareCall(
            String sql, int resultSetType, int resultSetConcurrency, int resultSetHoldability) throws SQLException {
        RewritePlan plan = callable(sql);
        return new FencedCallableStatement(
                this,
                connection.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability),
                plan,
                sql);
    }

    /**
     * The SQL fenced would send for {@code sql} (token placeholders included), or the refusal it would
     * raise: so users and tools can see exactly what happens to a statement.
     */
    @Override
    public String nativeSQL(String sql) throws SQLException {
        return plan(sql) instanceof RewritePlan.Fenced fenced ? fenced.sql() : connection.nativeSQL(sql);
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return new FencedDatabaseMetaData(this, connection.getMetaData());
    }

    /** Only {@code unwrap(PGConnection.class)} reaches the raw connection: the documented way around fenced. */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return JdbcSurface.unwrap(this, connection, iface, this, null);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return JdbcSurface.isWrapperFor(this, connection, iface);
    }

    /**
     * A prepared statement's plan. Its text is fixed when prepared, the token bound at each execution: inside
     * {@code Fencing.unfenced} it gets the text that also runs with a NULL token.
     */
    private RewritePlan preparedPlan(String sql) throws SQLException {
        RewritePlan plan = plan(sql);
        // the thread-local read only for the texts it can change (an enforced UPDATE guard), not every prepare
        return plan instanceof RewritePlan.Fenced fenced && fenced.tokenRequired() && TokenResolver.inUnfencedSection()
                ? runtime.forNullToken(fenced, sql)
                : plan;
    }

    private static String sqlFor(RewritePlan plan, String sql) {
        return plan instanceof RewritePlan.Fenced fenced ? fenced.sql() : sql;
    }

    /**
     * Calls run as written; one that writes a protected table is refused (use prepareStatement). A call fenced
     * refuses, prepared inside {@code Fencing.unfenced}, keeps its refused plan: whether it may run is decided
     * each time it executes, so it cannot carry the exemption out of the section.
     */
    RewritePlan callable(String sql) throws SQLException {
        RewritePlan plan = plan(sql);
        if (plan instanceof RewritePlan.Fenced fenced) {
            if (fenced.mode() == FencingMode.ENFORCE) {
                runtime.tracker().increment(Counter.UNSUPPORTED_REFUSED);
                throw new UnsupportedStatementException(
                        fenced.table(),
                        "a write through prepareCall;" + " use prepareStatement for writes to protected tables");
            }
            runtime.observedUnfenceable(
                    fenced.table(),
                    "a write through prepareCall;" + " use prepareStatement for writes to protected tables",
                    sql);
            return RewritePlan.Passthrough.PASSTHROUGH;
        }
        return plan;
    }

    @Override
    public String toString() {
        return "FencedConnection[" + connection + "]";
    }
}
