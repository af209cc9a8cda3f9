package dev.fenced.it.lease;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource in front of a real one that counts borrowed connections and can be pointed elsewhere: at
 * another server (a failover that lands on a standby), or at nothing (a network partition: every borrow
 * fails the way pgjdbc fails when it cannot connect).
 */
final class ProbeDataSource implements DataSource {

    private final AtomicReference<DataSource> target;
    private final AtomicInteger borrows = new AtomicInteger();
    private volatile IntConsumer onBorrow = n -> {};

    ProbeDataSource(DataSource target) {
        this.target = new AtomicReference<>(target);
    }

    /** From now on every borrow goes to {@code other}; null: every borrow fails (SQLState 08001). */
    void pointAt(DataSource other) {
        target.set(other);
    }

    int borrows() {
        return borrows.get();
    }

    /** Called with the running count after each borrow attempt. */
    void onBorrow(IntConsumer listener) {
        onBorrow = listener;
    }

    @Override
    public Connection getConnection() throws SQLException {
        int n = borrows.incrementAndGet();
        try {
            DataSource t = target.get();
            if (t == null) {
                throw new SQLException("Connection to the lease store refused (simulated partition)", "08001");
            }
            return t.getConnection();
        } finally {
            onBorrow.accept(n);
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper for " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
