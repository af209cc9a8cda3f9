package dev.fenced.action;

import dev.fenced.lease.LeaseTableName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The action table's SQL. A claim is one autocommit statement that does both checks in the database: the
 * caller's token must be the current token of a live lease (by the database clock, the lease row locked
 * {@code FOR SHARE} so a takeover cannot commit in between, and re-checked on the newest row version if
 * one did), and the key must be new ({@code ON CONFLICT DO NOTHING} on the primary key: of two claims of
 * one key, one inserts and the other waits for it, then finds it).
 */
public final class ActionStore {

    /** PostgreSQL: the relation does not exist. */
    private static final String UNDEFINED_TABLE = "42P01";

    private final DataSource dataSource;
    private final LeaseTableName table;
    private final String claimByName;
    private final String claimByToken;
    private final String doneSql;
    private final String failedSql;
    private final String releaseSql;
    private final String forgetSql;
    private final String createSql;

    /** What a claim found. */
    public enum Claim {
        /** The row is ours now: run the action. */
        CLAIMED,
        /** The row was there: the action was claimed before (by this holder or another). */
        ALREADY_CLAIMED,
        /** The token is not the current token of a live lease: the caller is stale. */
        STALE
    }

    public ActionStore(DataSource dataSource, LeaseTableName table, LeaseTableName leaseTable) {
        this.dataSource = dataSource;
        this.table = table;
        String t = table.table();
        String l = leaseTable.table();
        String insert = " claimed AS (INSERT INTO " + t + " (key, token, lease, claimed_at)"
                + " SELECT ?, h.token, h.name, now() FROM holder h ON CONFLICT (key) DO NOTHING RETURNING key)"
                + " SELECT (SELECT count(*) FROM holder), (SELECT count(*) FROM claimed)";
        // by name when this JVM knows the lease (the primary key), else by token alone (a scan of the leases)
        this.claimByName = "WITH holder AS (SELECT l.name, l.token FROM " + l + " AS l WHERE l.name = ? AND l.token = ?"
                + " AND l.expires_at > now() FOR SHARE)," + insert;
        this.claimByToken = "WITH holder AS (SELECT l.name, l.token FROM " + l + " AS l WHERE l.token = ?"
                + " AND l.expires_at > now() FOR SHARE)," + insert;
        this.doneSql = "UPDATE " + t + " SET done_at = now() WHERE key = ? AND token = ?";
        this.failedSql = "UPDATE " + t + " SET failed = ? WHERE key = ? AND token = ?";
        this.releaseSql = "DELETE FROM " + t + " WHERE key = ? AND token = ? AND done_at IS NULL";
        this.forgetSql = "DELETE FROM " + t + " WHERE key = ?";
        this.createSql = "CREATE TABLE IF NOT EXISTS " + t + " (key text PRIMARY KEY, token bigint NOT NULL,"
                + " lease text NOT NULL, claimed_at timestamptz NOT NULL, done_at timestamptz, failed text)";
    }

    public String table() {
        return table.toString();
    }

    /** Claims {@code key} under {@code token}; {@code lease} is its name when this JVM knows it, else null. */
    public Claim claim(String key, long token, String lease) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try {
                return claim(c, key, token, lease);
            } catch (SQLException e) {
                if (!UNDEFINED_TABLE.equals(e.getSQLState())) {
                    throw e;
                }
                create(c);
                return claim(c, key, token, lease);
            }
        }
    }

    private Claim claim(Connection c, String key, long token, String lease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lease != null ? claimByName : claimByToken)) {
            int i = 1;
            if (lease != null) {
                ps.setString(i++, lease);
            }
            ps.setLong(i++, token);
            ps.setString(i, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    return Claim.STALE;
                }
                return rs.getLong(2) == 1 ? Claim.CLAIMED : Claim.ALREADY_CLAIMED;
            }
        }
    }

    /** First use: the table is created (as the lease table is); another process creating it at once is fine. */
    private void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(createSql);
        } catch (SQLException e) {
            // two processes creating it at once collide in the catalog (unique violation, duplicate table)
            if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) {
                throw e;
            }
        }
    }

    public void done(String key, long token) throws SQLException {
        update(doneSql, null, key, token);
    }

    public void failed(String key, long token, String failure) throws SQLException {
        update(failedSql, failure, key, token);
    }

    /** Gives a claimed, not done key back, so the next holder runs the action. */
    public void release(String key, long token) throws SQLException {
        update(releaseSql, null, key, token);
    }

    /** Deletes the row of {@code key} whoever claimed it: the action may run again. */
    public boolean forget(String key) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(forgetSql)) {
            c.setAutoCommit(true);
            ps.setString(1, key);
            return ps.executeUpdate() > 0;
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    private void update(String sql, String text, String key, long token) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            int i = 1;
            if (text != null) {
                ps.setString(i++, text);
            }
            ps.setString(i++, key);
            ps.setLong(i, token);
            ps.executeUpdate();
        }
    }
}
