package dev.fenced.internal.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/** Metadata whose connection is the fenced one; its result sets report no statement, as JDBC allows. */
public final class FencedDatabaseMetaData extends DelegatingDatabaseMetaData {

    private final FencedConnection owner;

    FencedDatabaseMetaData(FencedConnection owner, DatabaseMetaData metaData) {
        super(metaData);
        this.owner = owner;
    }

    @Override
    public Connection getConnection() {
        return owner;
    }

    @Override
    protected @Nullable ResultSet wrap(@Nullable ResultSet resultSet) {
        return FencedResultSet.wrap(resultSet, null, owner, null);
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return JdbcSurface.unwrap(this, metaData, iface, owner, null);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return JdbcSurface.isWrapperFor(this, metaData, iface);
    }
}
