package dev.fenced.internal.lease;

import dev.fenced.internal.log.Logs;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the renewal and release statements planned for the arrays they carry, and the grant for the table's size.
 *
 * <p>They join the lease table to {@code unnest} of array parameters. pgjdbc server-prepares a statement after
 * its fifth use on a connection, and PostgreSQL then switches a prepared statement to a generic plan, one made
 * without the parameter values: it cannot see how long the arrays are and guesses a few rows. For 1,000 leases it
 * then picks a nested loop that compares every lease with every array element, about 40 times slower than the
 * hash join it plans when it sees the arrays (1.5 ms against 38 ms measured on PostgreSQL 15; 147 ms in the
 * benchmark on 18), and quadratic in the number of held leases: a renewal tick that outlives the leases it renews.
 * With pgjdbc's prepare threshold at 0 the statement is sent unnamed, and PostgreSQL plans each execution with
 * its values.
 *
 * <p>The grant too, for another reason: its {@code max(token)} (the check that the sequence is ahead of every token
 * granted) reads the last entry of the token index only if the plan was made for the table as it is. A plan cached
 * while the table was small (after an ANALYZE of a near-empty table) scans it, and stays until the next ANALYZE:
 * with the index in place, 20 grants scanned a table of 20,000 rows 40 times (LeaseGrantScaleIT without this).
 * Planned each time, a grant costs a planning, but never a scan.
 */
final class CustomPlans {

    private static final System.Logger LOG = Logs.get("dev.fenced.lease");
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private CustomPlans() {}

    static void require(PreparedStatement ps) {
        try {
            if (ps.isWrapperFor(org.postgresql.PGStatement.class)) {
                ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
                return;
            }
        } catch (SQLException | LinkageError e) {
            // not pgjdbc, or pgjdbc in a class loader fenced cannot see: warn below
        }
        if (WARNED.compareAndSet(false, true)) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: the lease store's statements are not pgjdbc statements ("
                            + ps.getClass().getName()
                            + "), so fenced cannot keep them from being server-prepared; if the"
                            + " server then gives them a generic plan, renewing many leases, or granting one from a"
                            + " large lease table, gets slow. Set"
                            + " prepareThreshold=0 on the lease store's data source, or plan_cache_mode=force_custom_plan"
                            + " for its user.");
        }
    }
}
