package dev.fenced.jdbc;

import dev.fenced.jdbc.delegate.DelegatingCallableStatement;
import dev.fenced.sql.RewritePlan;
import java.sql.CallableStatement;
import java.sql.SQLException;

/**
 * Calls run as written (a call that writes a protected table is refused when it is prepared): this
 * wrapper only keeps {@code getConnection()} and result sets (refcursors and arrays too) pointing at fenced objects.
 */
public final class FencedCallableStatement extends DelegatingCallableStatement {

    FencedCallableStatement(FencedConnection owner, CallableStatement callable) {
        super(owner, callable, RewritePlan.PASSTHROUGH);
    }

    @Override
    public Object getObject(int column) throws SQLException {
        return FencedValues.guard(super.getObject(column), this);
    }

    @Override
    public Object getObject(String column) throws SQLException {
        return FencedValues.guard(super.getObject(column), this);
    }

    @Override
    public Object getObject(int column, java.util.Map<String, Class<?>> map) throws SQLException {
        return FencedValues.guard(super.getObject(column, map), this);
    }

    @Override
    public Object getObject(String column, java.util.Map<String, Class<?>> map) throws SQLException {
        return FencedValues.guard(super.getObject(column, map), this);
    }

    @Override
    public <T> T getObject(int column, Class<T> type) throws SQLException {
        return FencedValues.guard(super.getObject(column, type), type, this);
    }

    @Override
    public <T> T getObject(String column, Class<T> type) throws SQLException {
        return FencedValues.guard(super.getObject(column, type), type, this);
    }

    @Override
    public java.sql.Array getArray(int column) throws SQLException {
        return (java.sql.Array) FencedValues.guard(super.getArray(column), this);
    }

    @Override
    public java.sql.Array getArray(String column) throws SQLException {
        return (java.sql.Array) FencedValues.guard(super.getArray(column), this);
    }
}
