package dev.fenced.internal.jdbc;

import dev.fenced.internal.sql.RewritePlan;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.SQLException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Calls run as written (a call that writes a protected table is refused when it is prepared; one fenced
 * refuses, prepared inside {@code Fencing.unfenced}, is refused when it runs outside one): this wrapper
 * keeps {@code getConnection()}, result sets and OUT values (refcursors, arrays) pointing at fenced objects.
 */
public final class FencedCallableStatement extends DelegatingCallableStatement {

    FencedCallableStatement(FencedConnection owner, CallableStatement callable, RewritePlan plan, String sql) {
        super(owner, callable, plan, sql);
    }

    private @Nullable Object safe(@Nullable Object value) throws SQLException {
        return JdbcSurface.value(value, owner, this);
    }

    @Override
    public @Nullable Object getObject(int index) throws SQLException {
        return safe(callable.getObject(index));
    }

    @Override
    public @Nullable Object getObject(String name) throws SQLException {
        return safe(callable.getObject(name));
    }

    @Override
    public @Nullable Object getObject(int index, Map<String, Class<?>> map) throws SQLException {
        return safe(callable.getObject(index, map));
    }

    @Override
    public @Nullable Object getObject(String name, Map<String, Class<?>> map) throws SQLException {
        return safe(callable.getObject(name, map));
    }

    @Override
    public <T> @Nullable T getObject(int index, Class<T> type) throws SQLException {
        return JdbcSurface.value(callable.getObject(index, type), type, owner, this);
    }

    @Override
    public <T> @Nullable T getObject(String name, Class<T> type) throws SQLException {
        return JdbcSurface.value(callable.getObject(name, type), type, owner, this);
    }

    @Override
    public @Nullable Array getArray(int index) throws SQLException {
        return (Array) safe(callable.getArray(index));
    }

    @Override
    public @Nullable Array getArray(String name) throws SQLException {
        return (Array) safe(callable.getArray(name));
    }

    @Override
    public void setArray(int index, @Nullable Array x) throws SQLException {
        super.setArray(index, FencedArray.raw(x));
    }

    @Override
    public void setObject(String name, @Nullable Object x) throws SQLException {
        super.setObject(name, FencedArray.raw(x));
    }
}
