package dev.fenced.internal.lease;

import dev.fenced.FencingException;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;

/**
 * Turns the lease store's refusals into errors that say what is wrong and what to do. Anything else
 * (a connection that failed, a timeout) is left as the driver reported it: its SQLState is what retry
 * logic keys on.
 */
final class StoreErrors {

    private StoreErrors() {}

    /**
     * Explains a failed grant. A server in recovery refuses every write with 25006 before it evaluates a
     * single row, so a standby can never grant; that error is where we learn we are on one, and only then
     * do we ask {@code pg_is_in_recovery()} to tell a standby from a primary that is read-only by setting.
     */
    static SQLException onGrant(Connection c, LeaseTableName table, String lease, SQLException e) {
        String state = e.getSQLState();
        if (PgStates.READ_ONLY_SQL_TRANSACTION.equals(state)) {
            Boolean recovery = inRecovery(c);
            if (Boolean.TRUE.equals(recovery)) {
                return standby(c, lease, e);
            }
            return new FencingException(
                    "fenced: cannot grant lease '" + lease + "': the lease store " + where(c)
                            + " runs read-only transactions" + (recovery == null ? "" : " although it is a primary")
                            + " (default_transaction_read_only?); leases need a writable primary",
                    FencingException.LEASE_STORE,
                    e);
        }
        if (PgStates.UNDEFINED_TABLE.equals(state)) {
            return missing(table, lease, e);
        }
        if (e.getMessage() != null && e.getMessage().contains(Tokens.BEHIND_MARKER)) {
            return new FencingException(
                    "fenced: cannot grant lease '" + lease + "': the token sequence "
                            + table.sequence() + " drew a token not above the highest token already granted ("
                            + e.getMessage()
                            + "): it would be granted again, and a stale holder could outrank the new one. Was the sequence reset or recreated? Move it"
                            + " past every token in " + table + " with setval",
                    FencingException.LEASE_STORE,
                    e);
        }
        if (PgStates.NOT_NULL_VIOLATION.equals(state)) {
            // Tokens.nextTokenSql is NULL past its limits: refused rather than wrapped into another timeline's range.
            return new FencingException(
                    "fenced: cannot grant lease '" + lease + "': no token is left: the sequence "
                            + table.sequence() + " passed " + Tokens.SEQUENCE_LIMIT
                            + " or the server's timeline passed "
                            + Tokens.TIMELINE_LIMIT + " (" + e.getMessage() + ")",
                    FencingException.LEASE_STORE,
                    e);
        }
        if (PgStates.INSUFFICIENT_PRIVILEGE.equals(state)) {
            return new FencingException(
                    "fenced: cannot grant lease '" + lease + "': the database user may not write "
                            + table + " or use its sequence " + table.sequence() + " (" + e.getMessage()
                            + "); grant SELECT, INSERT, UPDATE on the table and USAGE on the sequence",
                    FencingException.LEASE_STORE,
                    e);
        }
        return e;
    }

    /** The refusal to grant from a standby; {@code cause} may be null when we learned it by asking. */
    static FencingException standby(Connection c, String lease, @Nullable SQLException cause) {
        return new FencingException(
                "fenced: refusing to grant lease '" + lease + "': the lease store " + where(c)
                        + " is a standby (pg_is_in_recovery() is true). Tokens must come from the primary: a token"
                        + " sequence on an asynchronous follower can hand out the same token again after a failover,"
                        + " and a stale holder's writes would then pass the fence. Point the LeaseManager's DataSource"
                        + " at the primary.",
                FencingException.LEASE_STORE,
                cause);
    }

    static FencingException missing(LeaseTableName table, String lease, @Nullable SQLException cause) {
        return new FencingException(
                "fenced: cannot grant lease '" + lease + "': the lease table " + table
                        + " or its sequence " + table.sequence()
                        + " does not exist. Run the script dev/fenced/fenced-lease.sql"
                        + " (in the fenced-driver jar) with your migrations, or let the LeaseManager create them"
                        + " (createTable(true), fenced.lease.createTable=true)",
                FencingException.LEASE_STORE,
                cause);
    }

    /** Asks the server; null when even that fails (the connection is gone). */
    private static @Nullable Boolean inRecovery(Connection c) {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException ignored) {
            return null;
        }
    }

    /** The store's URL without its parameters, which may carry a password. */
    private static String where(Connection c) {
        try {
            String url = c.getMetaData().getURL();
            int q = url == null ? -1 : url.indexOf('?');
            return "(" + (q < 0 ? url : url.substring(0, q)) + ")";
        } catch (SQLException | RuntimeException e) {
            return "(unknown URL)";
        }
    }
}
