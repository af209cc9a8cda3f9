package dev.fenced.internal.jdbc;

import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.sql.RewritePlan;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A statement whose SQL texts are fenced as they are executed. With nothing to bind, the token is
 * written into the statement as a literal; the token is read when the statement runs (for batches, when
 * the statement is added).
 */
public class FencedStatement extends DelegatingStatement {

    /** Runs one form of {@code execute*(String)} on the delegate. */
    @FunctionalInterface
    private interface Execution<T> {
        T run(String sql) throws SQLException;
    }

    protected final FencedConnection owner;
    protected final FencedRuntime runtime;
    private @Nullable List<Batched> batched; // null: no fenced entry in the batch
    private boolean batchChangesSchema;
    /** The batch entry that changes the schema around a protected table, while a later entry could write. */
    private @Nullable String batchDdl;
    /** The texts of the current batch (addBatch(String)) and the catalog generation they were planned at. */
    private @Nullable List<String> batchTexts;

    private long batchGeneration;
    /** The last text run, for the result sets it produced (an updatable one refuses row writes over it). */
    private @Nullable String lastSql;
    /**
     * The first entry of the current batch that only an unfenced section may run (a refused text, or a protected
     * write added with a NULL token inside {@code Fencing.unfenced}): executeBatch refuses it outside one.
     */
    private RewritePlan.@Nullable Protected unfencedEntry;

    /**
     * {@link #setEscapeProcessing}: pgjdbc translates JDBC escapes ({@code {fn abs(x)}}) only while it is on, and
     * fenced fences the translated text; see {@link #checkEscapes}.
     */
    private boolean escapeProcessing = true;

    /** A fenced entry of the current batch: the lease cell it was added under, to re-check at execute. */
    private record Batched(@Nullable AtomicLong cell, RewritePlan.Fenced plan, long token) {}

    protected FencedStatement(FencedConnection owner, Statement statement) {
        super(statement);
        this.owner = owner;
        this.runtime = owner.runtime();
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
        statement.setEscapeProcessing(enable);
        escapeProcessing = enable;
    }

    /**
     * With escape processing off, pgjdbc sends a text's JDBC escapes as written, and PostgreSQL rejects them (a brace
     * is no token of its grammar). fenced plans every text with its escapes translated, as pgjdbc sends it by
     * default; sending that plan here would run a write raw PostgreSQL refuses. A protected write holding escapes
     * is refused instead, with the syntax error's SQLState, before anything is sent.
     */
    private void checkEscapes(String sql, RewritePlan plan) throws SQLException {
        if (escapeProcessing || !(plan instanceof RewritePlan.Protected p) || sql.indexOf('{') < 0) {
            return;
        }
        @Nullable String translated;
        try {
            translated = org.postgresql.core.Parser.replaceProcessing(sql, true, true);
        } catch (SQLException e) {
            translated = null;
        }
        if (!sql.equals(translated)) {
            throw new SQLException(
                    "fenced: refused a write to " + p.table() + ": escape processing is off on this statement and"
                            + " its text holds JDBC escape syntax ({...}), which PostgreSQL cannot run as written;"
                            + " turn escape processing on, or write the SQL without escapes",
                    "42601");
        }
    }

    private <T> T fenced(String sql, Execution<T> execution) throws SQLException {
        RewritePlan planned = owner.plan(sql);
        checkEscapes(sql, planned);
        lastSql = sql;
        if (!(planned instanceof RewritePlan.Fenced fenced)) {
            T result = execution.run(sql);
            afterSchemaChange(planned);
            return result;
        }
        long token = TokenResolver.resolve(fenced, sql, runtime);
        RewritePlan.Fenced plan = withToken(fenced, sql, token);
        T result;
        try {
            result = execution.run(plan.render(token));
            runtime.tracker().increment(Counter.WRITES_FENCED);
        } catch (SQLException e) {
            throw runtime.writeFailure(e, token);
        }
        afterSchemaChange(plan);
        return result;
    }

    /** The plan whose text {@code token} can be sent with: a NULL token needs the text that keeps the fence value. */
    private RewritePlan.Fenced withToken(RewritePlan.Fenced plan, String sql, long token) throws SQLException {
        return token == TokenResolver.NO_TOKEN ? runtime.forNullToken(plan, sql) : plan;
    }

    /** A statement that may have made a new view, partition or child of a protected table: read the catalog. */
    protected final void afterSchemaChange(RewritePlan plan) throws SQLException {
        if (plan.schemaChange()) {
            owner.schemaChanged();
        }
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        return fenced(sql, statement::execute);
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        return fenced(sql, s -> statement.execute(s, autoGeneratedKeys));
    }

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        return fenced(sql, s -> statement.execute(s, columnIndexes));
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
        return fenced(sql, s -> statement.execute(s, columnNames));
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        return FencedResultSet.of(fenced(sql, statement::executeQuery), this, owner, sql);
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        return fenced(sql, statement::executeUpdate);
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return fenced(sql, s -> statement.executeUpdate(s, autoGeneratedKeys));
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return fenced(sql, s -> statement.executeUpdate(s, columnIndexes));
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return fenced(sql, s -> statement.executeUpdate(s, columnNames));
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        return fenced(sql, statement::executeLargeUpdate);
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return fenced(sql, s -> statement.executeLargeUpdate(s, autoGeneratedKeys));
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return fenced(sql, s -> statement.executeLargeUpdate(s, columnIndexes));
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return fenced(sql, s -> statement.executeLargeUpdate(s, columnNames));
    }

    @Override
    public void addBatch(String sql) throws SQLException {
        RewritePlan plan = owner.plan(sql);
        checkEscapes(sql, plan);
        if (batchDdl != null
                && (plan instanceof RewritePlan.Fenced || dev.fenced.internal.sql.TextFacts.mayWrite(sql))) {
            // every entry is planned before any runs: a write after DDL that makes a new view, child or
            // partition of a protected table would be planned without knowing it
            runtime.refuseMixedBatch(batchDdl, sql);
        }
        if (plan.schemaChange()) {
            batchDdl = sql;
        }
        batchChangesSchema |= plan.schemaChange();
        if (batchTexts == null) {
            batchTexts = new ArrayList<>();
            batchGeneration = owner.generation();
        }
        batchTexts.add(sql);
        if (!(plan instanceof RewritePlan.Fenced fenced)) {
            if (plan instanceof RewritePlan.Refused refused && unfencedEntry == null) {
                unfencedEntry = refused; // let through inside Fencing.unfenced: it must still be inside at executeBatch
            }
            statement.addBatch(sql);
            return;
        }
        long token = TokenResolver.resolve(fenced, sql, runtime);
        RewritePlan.Fenced sent = withToken(fenced, sql, token);
        statement.addBatch(sent.render(token));
        remember(sent, token);
    }

    /** A prepared statement's batch entry whose plan changes the schema: the catalog is read after the batch. */
    protected final void batchedSchemaChange(RewritePlan plan) {
        batchChangesSchema |= plan.schemaChange();
    }

    /** Records a fenced batch entry (also used by prepared statements). */
    protected final void remember(RewritePlan.Fenced plan, long token) {
        if (batched == null) {
            batched = new ArrayList<>();
        }
        batched.add(new Batched(TokenResolver.currentCell(), plan, token));
        if (token == TokenResolver.NO_TOKEN && unfencedEntry == null && TokenResolver.inUnfencedSection()) {
            unfencedEntry = plan;
        }
    }

    @Override
    public int[] executeBatch() throws SQLException {
        long token = checkBatch();
        int[] counts;
        try {
            counts = statement.executeBatch();
            countBatch();
        } catch (SQLException e) {
            throw runtime.writeFailure(e, token);
        } finally {
            batched = null;
            unfencedEntry = null;
        }
        afterBatch();
        return counts;
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        long token = checkBatch();
        long[] counts;
        try {
            counts = statement.executeLargeBatch();
            countBatch();
        } catch (SQLException e) {
            throw runtime.writeFailure(e, token);
        } finally {
            batched = null;
            unfencedEntry = null;
        }
        afterBatch();
        return counts;
    }

    /**
     * The entries added with {@code addBatch(String)} were planned when added: what they write may have been
     * created since, an SQL {@code EXECUTE} may name another statement by now, and a catalog change since
     * (a new view, partition or child of a protected table) makes their plans stale, so the batch is refused.
     */
    private void checkBatchTexts() throws SQLException {
        List<String> texts = batchTexts;
        if (texts == null) {
            return;
        }
        for (String sql : texts) {
            owner.lookUpUnknownTargets(sql);
        }
        if (owner.generation() != batchGeneration) {
            runtime.refuseStaleBatch(String.join(";\n", texts));
            return;
        }
        for (String sql : texts) {
            owner.checkExecuted(sql);
        }
    }

    /** A lease lost between addBatch and executeBatch stops the whole batch before it is sent. */
    private long checkBatch() throws SQLException {
        try {
            checkBatchTexts();
            checkUnfencedEntry();
        } catch (SQLException e) {
            clearBatch();
            throw e;
        }
        batchTexts = null;
        if (batched == null) {
            return TokenResolver.NO_TOKEN;
        }
        long token = TokenResolver.NO_TOKEN;
        for (Batched b : batched) {
            try {
                TokenResolver.checkStillHeld(b.cell(), b.plan(), runtime);
            } catch (SQLException e) {
                statement.clearBatch();
                batched = null;
                throw e;
            }
            token = b.token();
        }
        return token;
    }

    /**
     * An entry added inside {@code Fencing.unfenced} (a refused text, or a protected write with a NULL token) runs
     * only while the executing thread is still inside one: the section cannot be carried out in a batch.
     */
    private void checkUnfencedEntry() throws SQLException {
        RewritePlan.@Nullable Protected plan = unfencedEntry;
        if (plan == null || plan.mode() != dev.fenced.FencingMode.ENFORCE || TokenResolver.inUnfencedSection()) {
            return;
        }
        runtime.tracker().increment(Counter.UNSUPPORTED_REFUSED);
        throw new dev.fenced.UnsupportedStatementException(
                plan.table(),
                "a batch entry added inside"
                        + " Fencing.unfenced, executed outside it; run the batch inside the unfenced section");
    }

    private void afterBatch() throws SQLException {
        unfencedEntry = null;
        batchDdl = null;
        if (batchChangesSchema) {
            batchChangesSchema = false;
            owner.schemaChanged();
        }
    }

    private void countBatch() {
        if (batched != null) {
            runtime.tracker().add(Counter.WRITES_FENCED, batched.size());
        }
    }

    @Override
    public void clearBatch() throws SQLException {
        batched = null;
        unfencedEntry = null;
        batchTexts = null;
        batchChangesSchema = false;
        batchDdl = null;
        statement.clearBatch();
    }

    @Override
    public @Nullable ResultSet getResultSet() throws SQLException {
        return FencedResultSet.wrap(statement.getResultSet(), this, owner, lastSql);
    }

    @Override
    public @Nullable ResultSet getGeneratedKeys() throws SQLException {
        return FencedResultSet.wrap(statement.getGeneratedKeys(), this, owner, null);
    }

    @Override
    public Connection getConnection() {
        return owner;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return JdbcSurface.unwrap(this, statement, iface, owner, this);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return JdbcSurface.isWrapperFor(this, statement, iface);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + statement + "]";
    }
}
