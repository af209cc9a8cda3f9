package dev.fenced.internal.pg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;

/**
 * Which database a connection reaches, as one string: the cluster's system identifier (kept by a promoted standby,
 * so a failover is the same origin) and the database's oid. fenced's own lease tokens are of domain {@code fenced}
 * in every database, but each database has its own counter: a token drawn in one says nothing about the rows of
 * another. The lease store stamps its tokens with its origin and the driver compares it with the origin of the
 * database it writes (issue 28: one lease over several databases needs a named token domain).
 *
 * <p>Read by the lease store at its first grant and by the driver at a configuration's first connect, never on a
 * write. Both sides read it with this one query, so they agree whenever they reach the same database.
 */
public final class DatabaseOrigin {

    static final String SQL = "SELECT s.system_identifier, d.oid FROM pg_catalog.pg_control_system() AS s,"
            + " pg_catalog.pg_database AS d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()";

    private DatabaseOrigin() {}

    /**
     * The origin of the database {@code c} reaches, or null where the server does not say (a server without
     * {@code pg_control_system()}, or one that forbids it): no origin is then compared, on either side, since the
     * store's read fails the same way. A failure inside a transaction is rolled back to a savepoint, leaving the
     * caller's transaction usable.
     */
    public static @Nullable String read(Connection c) throws SQLException {
        Savepoint savepoint = c.getAutoCommit() ? null : c.setSavepoint();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(SQL)) {
            String origin = rs.next() ? "pg:" + rs.getString(1) + "/" + rs.getLong(2) : null;
            if (savepoint != null) {
                c.releaseSavepoint(savepoint);
            }
            return origin;
        } catch (SQLException e) {
            String state = e.getSQLState();
            if (state == null || state.startsWith("08")) { // the connection, not the function, failed
                throw e;
            }
            if (savepoint != null) {
                c.rollback(savepoint);
            }
            return null;
        }
    }
}
