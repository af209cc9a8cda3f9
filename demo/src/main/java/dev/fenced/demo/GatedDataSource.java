package dev.fenced.demo;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A worker's own way to the database in thread mode. While the worker is frozen the gate is shut and
 * nothing of that worker reaches the database, its lease renewals included: the same as a holder whose
 * VM stalled or whose network stopped. (With --processes the whole JVM is stopped with SIGSTOP instead.)
 */
final class GatedDataSource implements DataSource, Freezer {

    private final DataSource target;
    private final Object lock = new Object();
    private boolean shut;

    GatedDataSource(DataSource target) {
        this.target = target;
    }

    @Override
    public void freeze(long millis) throws InterruptedException {
        synchronized (lock) {
            shut = true;
        }
        try {
            Thread.sleep(millis);
        } finally {
            synchronized (lock) {
                shut = false;
                lock.notifyAll();
            }
        }
    }

    private void pass() throws SQLException {
        synchronized (lock) {
            while (shut) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted while frozen", e);
                }
            }
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        pass();
        return target.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        pass();
        return target.getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }
}
