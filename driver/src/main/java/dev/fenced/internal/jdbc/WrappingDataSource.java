package dev.fenced.internal.jdbc;

import dev.fenced.internal.config.FencedConfig;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * An existing DataSource (a pool) fenced in place: every connection it hands out is the pool's own, wrapped on
 * the way out through {@link ConnectionFactory#wrap}, the driver's one path. The pool keeps pooling raw
 * connections, so its metrics, health and settings stay as they were; {@link #unwrap} reaches it.
 */
final class WrappingDataSource implements DataSource {

    private final DataSource pool;
    private final FencedConfig config;
    /** Names this pool's database for the catalog knowledge its connections share. */
    private final String key;
    /** This pool's runtimes: they go with it. */
    private final Runtimes runtimes = Runtimes.ofDataSource();

    WrappingDataSource(DataSource pool, FencedConfig config) {
        if (pool instanceof WrappingDataSource) {
            throw new IllegalArgumentException("fenced: this DataSource is already fenced");
        }
        this.pool = pool;
        this.config = config;
        this.key = "datasource:" + pool.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(pool));
    }

    @Override
    public Connection getConnection() throws SQLException {
        return ConnectionFactory.wrap(pool.getConnection(), config, key, runtimes, null);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return ConnectionFactory.wrap(
                pool.getConnection(username, password), config, key + "|" + username, runtimes, null);
    }

    /** What this pool's connections counted. */
    Runtimes runtimes() {
        return runtimes;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    /** This wrapper, the pool, or whatever the pool unwraps to (Hikari's metrics find HikariDataSource here). */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        if (iface.isInstance(pool)) {
            return iface.cast(pool);
        }
        return pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || iface.isInstance(pool) || pool.isWrapperFor(iface);
    }

    @Override
    public String toString() {
        return "fenced(" + pool + ")";
    }
}
