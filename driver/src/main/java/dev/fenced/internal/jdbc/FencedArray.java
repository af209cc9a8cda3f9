package dev.fenced.internal.jdbc;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An array whose result sets lead back to the fenced connection: pgjdbc builds an array's result set on
 * a raw statement of its own, from which {@code getStatement().getConnection()} would be the raw connection.
 */
final class FencedArray implements Array {

    private final Array array;
    private final FencedConnection connection;

    FencedArray(Array array, FencedConnection connection) {
        this.array = array;
        this.connection = connection;
    }

    private @Nullable ResultSet wrap(@Nullable ResultSet rs) throws SQLException {
        return JdbcSurface.resultSet(rs, connection, null);
    }

    @Override
    public String getBaseTypeName() throws SQLException {
        return array.getBaseTypeName();
    }

    @Override
    public int getBaseType() throws SQLException {
        return array.getBaseType();
    }

    @Override
    public Object getArray() throws SQLException {
        return array.getArray();
    }

    @Override
    public Object getArray(Map<String, Class<?>> map) throws SQLException {
        return array.getArray(map);
    }

    @Override
    public Object getArray(long index, int count) throws SQLException {
        return array.getArray(index, count);
    }

    @Override
    public Object getArray(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return array.getArray(index, count, map);
    }

    @Override
    public @Nullable ResultSet getResultSet() throws SQLException {
        return wrap(array.getResultSet());
    }

    @Override
    public @Nullable ResultSet getResultSet(Map<String, Class<?>> map) throws SQLException {
        return wrap(array.getResultSet(map));
    }

    @Override
    public @Nullable ResultSet getResultSet(long index, int count) throws SQLException {
        return wrap(array.getResultSet(index, count));
    }

    @Override
    public @Nullable ResultSet getResultSet(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return wrap(array.getResultSet(index, count, map));
    }

    @Override
    public void free() throws SQLException {
        array.free();
    }

    /** The raw array behind {@code x}, for binding it to a statement of the same connection (pgjdbc wants its own). */
    static @Nullable Array raw(@Nullable Array x) {
        return x instanceof FencedArray f ? f.array : x;
    }

    /** Like {@link #raw(Array)} for {@code setObject}. */
    static @Nullable Object raw(@Nullable Object x) {
        return x instanceof FencedArray f ? f.array : x;
    }

    @Override
    public String toString() {
        return array.toString();
    }
}
