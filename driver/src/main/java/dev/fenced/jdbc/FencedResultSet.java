package dev.fenced.jdbc;

import dev.fenced.jdbc.delegate.DelegatingResultSet;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

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
