package dev.fenced.internal.jdbc;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A result set whose {@code getStatement()} is the fenced statement that produced it (null for metadata),
 * whose arrays and refcursors lead back to fenced objects, and whose row writes (an updatable result
 * set's {@code updateRow}, {@code insertRow}, {@code deleteRow}, which pgjdbc sends itself on the raw
 * connection) are refused when the query that made it names a protected table.
 */
public final class FencedResultSet extends DelegatingResultSet {

    private final @Nullable Statement owner; // null for metadata's, an array's or a refcursor's without one
    private final FencedConnection connection;
    /** The SQL that produced the rows (null when fenced did not run it: metadata, arrays, refcursors). */
    private final @Nullable String query;

    private FencedResultSet(
            ResultSet resultSet, @Nullable Statement owner, FencedConnection connection, @Nullable String query) {
        super(resultSet);
        this.owner = owner;
        this.connection = connection;
        this.query = query;
    }

    /** {@code resultSet} wrapped; null for null (a statement's {@code getResultSet} after an update count). */
    static @Nullable ResultSet wrap(
            @Nullable ResultSet resultSet,
            @Nullable Statement owner,
            FencedConnection connection,
            @Nullable String query) {
        return resultSet == null ? null : of(resultSet, owner, connection, query);
    }

    /** A query's result set wrapped (JDBC's {@code executeQuery} never returns null: pgjdbc throws instead). */
    static ResultSet of(
            ResultSet resultSet, @Nullable Statement owner, FencedConnection connection, @Nullable String query) {
        return new FencedResultSet(resultSet, owner, connection, query);
    }

    @Override
    public @Nullable Statement getStatement() {
        return owner;
    }

    private @Nullable Object safe(@Nullable Object value) throws SQLException {
        return JdbcSurface.value(value, connection, owner);
    }

    @Override
    public @Nullable Object getObject(int column) throws SQLException {
        return safe(resultSet.getObject(column));
    }

    @Override
    public @Nullable Object getObject(String column) throws SQLException {
        return safe(resultSet.getObject(column));
    }

    @Override
    public @Nullable Object getObject(int column, Map<String, Class<?>> map) throws SQLException {
        return safe(resultSet.getObject(column, map));
    }

    @Override
    public @Nullable Object getObject(String column, Map<String, Class<?>> map) throws SQLException {
        return safe(resultSet.getObject(column, map));
    }

    @Override
    public <T> @Nullable T getObject(int column, Class<T> type) throws SQLException {
        return JdbcSurface.value(resultSet.getObject(column, type), type, connection, owner);
    }

    @Override
    public <T> @Nullable T getObject(String column, Class<T> type) throws SQLException {
        return JdbcSurface.value(resultSet.getObject(column, type), type, connection, owner);
    }

    @Override
    public @Nullable Array getArray(int column) throws SQLException {
        return (Array) safe(resultSet.getArray(column));
    }

    @Override
    public @Nullable Array getArray(String column) throws SQLException {
        return (Array) safe(resultSet.getArray(column));
    }

    @Override
    public void updateRow() throws SQLException {
        connection.checkRowWrite(query, "updateRow");
        resultSet.updateRow();
    }

    @Override
    public void insertRow() throws SQLException {
        connection.checkRowWrite(query, "insertRow");
        resultSet.insertRow();
    }

    @Override
    public void deleteRow() throws SQLException {
        connection.checkRowWrite(query, "deleteRow");
        resultSet.deleteRow();
    }

    @Override
    public void updateArray(int column, @Nullable Array x) throws SQLException {
        resultSet.updateArray(column, FencedArray.raw(x));
    }

    @Override
    public void updateArray(String column, @Nullable Array x) throws SQLException {
        resultSet.updateArray(column, FencedArray.raw(x));
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return JdbcSurface.unwrap(this, resultSet, iface, connection, owner);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return JdbcSurface.isWrapperFor(this, resultSet, iface);
    }
}
