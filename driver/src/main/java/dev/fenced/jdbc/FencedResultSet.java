package dev.fenced.jdbc;

import dev.fenced.UnsupportedStatementException;
import dev.fenced.config.ProtectedTable;
import dev.fenced.config.TableName;
import dev.fenced.jdbc.delegate.DelegatingResultSet;
import dev.fenced.sql.FencingTargets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGResultSetMetaData;

/** A result set whose {@code getStatement()} is the fenced statement that produced it (null for metadata). */
public final class FencedResultSet extends DelegatingResultSet {

    private final Statement owner;

    private FencedResultSet(ResultSet resultSet, Statement owner) {
        super(resultSet);
        this.owner = owner;
    }

    static ResultSet wrap(ResultSet resultSet, Statement owner) {
        return resultSet == null ? null : new FencedResultSet(resultSet, owner);
    }

    @Override
    public Statement getStatement() {
        return owner;
    }

    @Override
    public Object getObject(int column) throws SQLException {
        return FencedValues.guard(super.getObject(column), owner);
    }

    @Override
    public Object getObject(String column) throws SQLException {
        return FencedValues.guard(super.getObject(column), owner);
    }

    @Override
    public Object getObject(int column, java.util.Map<String, Class<?>> map) throws SQLException {
        return FencedValues.guard(super.getObject(column, map), owner);
    }

    @Override
    public Object getObject(String column, java.util.Map<String, Class<?>> map) throws SQLException {
        return FencedValues.guard(super.getObject(column, map), owner);
    }

    @Override
    public <T> T getObject(int column, Class<T> type) throws SQLException {
        return FencedValues.guard(super.getObject(column, type), type, owner);
    }

    @Override
    public <T> T getObject(String column, Class<T> type) throws SQLException {
        return FencedValues.guard(super.getObject(column, type), type, owner);
    }

    @Override
    public java.sql.Array getArray(int column) throws SQLException {
        return (java.sql.Array) FencedValues.guard(super.getArray(column), owner);
    }

    @Override
    public java.sql.Array getArray(String column) throws SQLException {
        return (java.sql.Array) FencedValues.guard(super.getArray(column), owner);
    }

    @Override
    public void updateRow() throws SQLException {
        refuseWriteThrough();
        super.updateRow();
    }

    @Override
    public void deleteRow() throws SQLException {
        refuseWriteThrough();
        super.deleteRow();
    }

    @Override
    public void insertRow() throws SQLException {
        refuseWriteThrough();
        super.insertRow();
    }

    /**
     * pgjdbc runs an updatable result set's {@code updateRow}, {@code deleteRow} and {@code insertRow} as its own
     * UPDATE/DELETE/INSERT on its own connection, which fenced never sees: a stale or token-less write would land.
     * Refused when a column comes from a protected table (or a view or parent reaching one), or from a relation
     * pgjdbc cannot name.
     */
    private void refuseWriteThrough() throws SQLException {
        if (owner == null || !(owner.getConnection() instanceof FencedConnection fenced)) {
            return;
        }
        FencingTargets targets = fenced.runtime().targets();
        if (targets.isEmpty() && targets.indirect().isEmpty()) {
            return;
        }
        PGResultSetMetaData meta = resultSet.getMetaData().unwrap(PGResultSetMetaData.class);
        for (int i = 1; i <= resultSet.getMetaData().getColumnCount(); i++) {
            String name = meta.getBaseTableName(i);
            if (name == null || name.isEmpty()) {
                throw new UnsupportedStatementException(targets.tables().isEmpty() ? "a protected table"
                        : targets.tables().get(0).displayName(), "an updatable result set over a relation pgjdbc"
                        + " cannot name; write with an UPDATE, DELETE or INSERT statement");
            }
            String schema = meta.getBaseSchemaName(i);
            TableName base = new TableName(schema == null || schema.isEmpty() ? null : schema, name);
            for (ProtectedTable t : targets.tables()) {
                if (t.name().matchedBy(base)) {
                    throw new UnsupportedStatementException(t.displayName(), UPDATABLE);
                }
            }
            for (TableName v : targets.indirect().keySet()) {
                if (v.matchedBy(base)) {
                    throw new UnsupportedStatementException(v.toString(), UPDATABLE);
                }
            }
        }
    }

    private static final String UPDATABLE = "an updatable result set's updateRow/deleteRow/insertRow (pgjdbc runs"
            + " them itself, unfenced); write with an UPDATE, DELETE or INSERT statement";

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return resultSet.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || resultSet.isWrapperFor(iface);
    }
}
