package dev.fenced.it.lease.fault;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The pool-exhaustion nemesis: takes the connections the holders need and keeps them until closed. Against a
 * server it opens connections (as a superuser, so the reserved slots go too) until the server refuses one
 * ({@code 53300 too many clients}); against PgBouncer in transaction mode it pins every server connection of
 * each pool with an open transaction, so the holders' statements queue.
 */
final class ConnectionHog implements AutoCloseable {

    private static final int MOST = 500;

    private final List<Connection> held = new ArrayList<>();

    private ConnectionHog() {}

    /** Opens connections to {@code url} until the server refuses one. */
    static ConnectionHog fill(String url) throws SQLException {
        ConnectionHog hog = new ConnectionHog();
        try {
            while (hog.held.size() < MOST) {
                hog.held.add(DriverManager.getConnection(url));
            }
        } catch (SQLException full) {
            if (hog.held.isEmpty()) {
                throw full; // not exhaustion: the server is down (the caller skips this fault)
            }
        }
        return hog;
    }

    /** For each pooled database, {@code poolSize} connections, each in an open transaction. */
    static ConnectionHog pinPools(List<String> urls, int poolSize) throws SQLException {
        ConnectionHog hog = new ConnectionHog();
        try {
            for (String url : urls) {
                for (int i = 0; i < poolSize; i++) {
                    Connection c = DriverManager.getConnection(url);
                    hog.held.add(c);
                    c.setAutoCommit(false);
                    c.createStatement().execute("SELECT 1");
                }
            }
        } catch (SQLException e) {
            hog.close();
            throw e;
        }
        return hog;
    }

    int size() {
        return held.size();
    }

    @Override
    public void close() {
        for (Connection c : held) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // the server may have gone meanwhile
            }
        }
        held.clear();
    }
}
