package dev.fenced.internal.jdbc;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * A result set whose {@code getStatement()} is the fenced statement that produced it (null for metadata),
 * whose arrays and refcursors lead back to fenced objects, and whose row writes (an updatable result
 * set's {@code updateRow}, {@code insertRow}, {@code deleteRow}, which pgjdbc sends itself on the raw
 * connection) are refused when the query that made it names a protected table.
 */
public final class FencedResultSet extends DelegatingResultSet {

    private final Statement owner;
    private final FencedConnection connection;
    /** The SQL that produced the rows (null when fenced did not run it: metadata, arrays, refcursors). */
    private final String query;

    private FencedResultSet(ResultSet resultSet, Statement owner, FencedConnection connection, String query) {
        super(resultSet);
        this.owner = owner;
        this.connection = connection;
        this.query = query;
    }

    static ResultSet wrap(ResultSet resultSet, Statement owner, FencedConnection connection, String query) {
        return resultSet == null ? null : new FencedResultSet(resultSet, owner, connection, query);
    }

    @Override
    public Statement getStatement() {
        return owner;
    }

    private Object safe(Object value) throws SQLException {
        return JdbcSurface.value(value, connection, owner);
    }

    @Override
    public Object getObject(int column) throws SQLException {
        return safe(resultSet.getObject(column));
    }

    @Override
    public Object getObject(String column) throws SQLException {
        return safe(resultSet.getObject(column));
    }

    @Override
    public Object getObject(int column, Map<String, Class<?>> map) throws SQLException {
        return safe(resultSet.getObject(column, map));
    }

    @Override
    public Object getObject(String column, Map<String, Class<?>> map) throws SQLException {
        return safe(resultSet.getObject(column, map));
    }

    @Override
    public <T> T getObject(int column, Class<T> type) throws SQLException {
        return JdbcSurface.value(resultSet.getObject(column, type), type, connection, owner);
    }

    @Override
    public <T> T getObject(String column, Class<T> type) throws SQLException {
        return JdbcSurface.value(resultSet.getObject(column, type), type, connection, owner);
    }

    @Override
    public Array getArray(int column) throws SQLException {
        return (Array) safe(resultSet.getArray(column));
    }

    @Override
    public Array getArray(String column) throws SQLException {
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
    public void updateArray(int column, Array x) throws SQLException {
        resultSet.updateArray(column, FencedArray.raw(x));
    }

    @Override
    public void updateArray(String column, Array x) throws SQLException {
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
