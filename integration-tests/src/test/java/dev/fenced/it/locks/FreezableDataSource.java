package dev.fenced.it.locks;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource whose {@code getConnection} blocks while it is frozen: what a process pause does to everything
 * that reaches the database through it (a scheduler's heartbeats and polling, a lease manager's renewals), in a
 * test that needs the rest of the JVM running.
 */
final class FreezableDataSource implements DataSource {

    private final DataSource delegate;
    private volatile CountDownLatch thawed = new CountDownLatch(0);

    FreezableDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    void freeze() {
        thawed = new CountDownLatch(1);
    }

    void thaw() {
        thawed.countDown();
    }

    @Override
    public Connection getConnection() throws SQLException {
        JobAudit.await(thawed);
        return delegate.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        JobAudit.await(thawed);
        return delegate.getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }
}
