package dev.fenced.lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The lease table's SQL. Every operation borrows a connection, runs one autocommit statement and gives
 * the connection back: no advisory locks, no session variables, nothing that outlives the statement, so
 * PgBouncer in transaction pooling mode and any connection pool are fine. Whether a lease has expired is
 * decided by the database's clock ({@code now()}), never by ours.
 */
public final class LeaseStore {

    private final DataSource dataSource;
    private final LeaseTableName table;
    private final boolean createTable;
    private final String grantSql;
    private final String renewSql;
    private final String releaseSql;
    private final String describeSql;
    private volatile boolean schemaChecked;

    public LeaseStore(DataSource dataSource, LeaseTableName table, boolean createTable) {
        this.dataSource = dataSource;
        this.table = table;
        this.createTable = createTable;
        String t = table.table();
        String nextval = "nextval(" + table.sequenceLiteral() + ")";
        // Grant and takeover in one statement. A new name inserts; an existing row is taken over only if
        // it expired or was released, by the database clock. The takeover draws its token in the SET list,
        // that is after PostgreSQL has locked the row, so grants of one name get tokens in the order they
        // happen. The NOT EXISTS only spares the sequence while a lease is visibly held (a waiter polling
        // would otherwise burn a value per attempt); ON CONFLICT alone decides who wins.
        this.grantSql = "INSERT INTO " + t + " AS l (name, holder, token, granted_at, renewed_at, expires_at)"
                + " SELECT ?, ?, " + nextval + ", now(), now(), now() + ?::bigint * interval '1 millisecond'"
                + " WHERE NOT EXISTS (SELECT 1 FROM " + t + " WHERE name = ? AND expires_at > now())"
                + " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = " + nextval + ","
                + " granted_at = now(), renewed_at = now(), expires_at = excluded.expires_at"
                + " WHERE l.expires_at <= now()"
                + " RETURNING l.token";
        // Every lease a manager holds, renewed by one statement, planned for its arrays on every execution
        // (CustomPlans). A row is renewed only while it is still this holder's grant (token) and has not
        // expired by the database clock: an expired lease may already be another holder's to take, so it is
        // never revived.
        this.renewSql = "UPDATE " + t + " AS l SET renewed_at = now(),"
                + " expires_at = now() + r.ttl_ms * interval '1 millisecond'"
                + " FROM unnest(?::text[], ?::bigint[], ?::bigint[]) AS r(name, token, ttl_ms)"
                + " WHERE l.name = r.name AND l.token = r.token AND l.holder = ? AND l.expires_at > now()"
                + " RETURNING l.token";
        // Released rows stay, marked '-infinity': the next grant of the name then goes through the locked
        // takeover path above instead of a fresh insert.
        this.releaseSql = "UPDATE " + t + " AS l SET expires_at = '-infinity', renewed_at = now()"
                + " FROM unnest(?::text[], ?::bigint[]) AS r(name, token)"
                + " WHERE l.name = r.name AND l.token = r.token AND l.holder = ?";
        this.describeSql = "SELECT holder, token, expires_at, expires_at > now() FROM " + t + " WHERE name = ?";
    }

    public LeaseTableName table() {
        return table;
    }

    /** A granted lease: its token and when (System.nanoTime) the grant request was sent. */
    public record Grant(long token, long sentAtNanos) {
    }

    /** The outcome of one renewal statement: the tokens still held, and when the request was sent. */
    public record Renewal(Set<Long> renewed, long sentAtNanos) {
    }

    /** Who holds a lease right now, by the database clock; for error messages. */
    public record Holder(String holder, long token, String expiresAt, boolean live) {
    }

    /**
     * Grants {@code name} to {@code holder} if it is free, expired or released.
     *
     * @return the grant, or null if someone else holds it
     */
    public Grant grant(String name, String holder, long ttlMillis) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            ensureSchema(c, name);
            boolean auto = c.getAutoCommit();
            try (PreparedStatement ps = c.prepareStatement(grantSql)) {
                ps.setString(1, name);
                ps.setString(2, holder);
                ps.setLong(3, ttlMillis);
                ps.setString(4, name);
                // The holder's deadline counts from here: the database's now() can only be later.
                long sentAt = System.nanoTime();
                Grant grant = null;
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        grant = new Grant(rs.getLong(1), sentAt);
                    }
                }
                if (!auto) {
                    c.commit();
                }
                return grant;
            } catch (SQLException e) {
                rollbackQuietly(c, auto);
                throw StoreErrors.onGrant(c, table, name, e);
            }
        }
    }

    /**
     * Renews, in one statement, every listed lease that is still this holder's and not expired.
     *
     * @param queryTimeoutSeconds gives the statement up after this long (0: no limit)
     */
    public Renewal renew(String holder, String[] names, long[] tokens, long[] ttlMillis, int queryTimeoutSeconds)
            throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            try (PreparedStatement ps = c.prepareStatement(renewSql)) {
                CustomPlans.require(ps);
                ps.setArray(1, c.createArrayOf("text", names));
                ps.setArray(2, c.createArrayOf("int8", boxed(tokens)));
                ps.setArray(3, c.createArrayOf("int8", boxed(ttlMillis)));
                ps.setString(4, holder);
                ps.setQueryTimeout(queryTimeoutSeconds);
                long sentAt = System.nanoTime();
                Set<Long> renewed = new HashSet<>(names.length * 2);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        renewed.add(rs.getLong(1));
                    }
                }
                if (!auto) {
                    c.commit();
                }
                return new Renewal(renewed, sentAt);
            } catch (SQLException e) {
                rollbackQuietly(c, auto);
                throw e;
            }
        }
    }

    /** Releases the listed leases that are still this holder's grants; returns how many were. */
    public int release(String holder, String[] names, long[] tokens) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
                CustomPlans.require(ps);
                ps.setArray(1, c.createArrayOf("text", names));
                ps.setArray(2, c.createArrayOf("int8", boxed(tokens)));
                ps.setString(3, holder);
                int n = ps.executeUpdate();
                if (!auto) {
                    c.commit();
                }
                return n;
            } catch (SQLException e) {
                rollbackQuietly(c, auto);
                throw e;
            }
        }
    }

    /** The row of lease {@code name}, or null if it was never granted. */
    public Holder describe(String name) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(describeSql)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Holder(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getBoolean(4)) : null;
            } finally {
                if (!c.getAutoCommit()) {
                    c.commit();
                }
            }
        }
    }

    /**
     * Checked once per store, on the first grant: after that a missing table or a standby is reported
     * by the grant statement itself (see {@link StoreErrors#onGrant}), at no extra round trip.
     */
    private void ensureSchema(Connection c, String lease) throws SQLException {
        if (schemaChecked) {
            return;
        }
        synchronized (this) {
            if (!schemaChecked) {
                boolean auto = c.getAutoCommit();
                try {
                    LeaseSchema.ensure(c, table, createTable, lease);
                    if (!auto) {
                        c.commit();
                    }
                } catch (SQLException e) {
                    rollbackQuietly(c, auto);
                    throw e;
                }
                schemaChecked = true;
            }
        }
    }

    private static void rollbackQuietly(Connection c, boolean auto) {
        if (!auto) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is broken; the pool will find out
            }
        }
    }

    private static Long[] boxed(long[] values) {
        Long[] out = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i];
        }
        return out;
    }
}
