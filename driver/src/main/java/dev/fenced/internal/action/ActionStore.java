package dev.fenced.internal.action;

import dev.fenced.FencingException;
import dev.fenced.internal.jdbc.OpenTransactions;
import dev.fenced.internal.lease.LeaseSchema;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The action table's SQL. A claim is one autocommit statement that does both checks in the database: the
 * caller's token must be the current token of a live lease (by the database clock, the lease row locked
 * {@code FOR SHARE} so a takeover cannot commit in between, and re-checked on the newest row version if
 * one did), and the key must be new ({@code ON CONFLICT DO NOTHING} on the primary key: of two claims of
 * one key, one inserts and the other waits for it, then finds it).
 */
public final class ActionStore {

    private final DataSource dataSource;
    private final LeaseTableName table;
    private final LeaseTableName leaseTable;
    /** The statements for both tables with their schemas, fixed at the first call; null before. */
    private volatile @Nullable Sql sql;

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
        this.leaseTable = leaseTable;
    }

    /**
     * The statements, every name in them schema-qualified: the action and lease tables as resolved once, at the
     * first call ({@link LeaseSchema#qualified}), and pg_catalog's operators and functions, so no session's
     * search_path (a schema of its own first, a temp table of the same name) decides which rows a claim checks or
     * writes (issue 24).
     */
    private record Sql(
            String claimByName,
            String claimByToken,
            String done,
            String failed,
            String release,
            String forget,
            String create) {

        static Sql of(LeaseTableName table, LeaseTableName leaseTable) {
            String t = table.table();
            String l = leaseTable.table();
            String insert = " claimed AS (INSERT INTO " + t + " (key, token, lease, claimed_at)"
                    + " SELECT ?, h.token, h.name, pg_catalog.now() FROM holder h ON CONFLICT (key) DO NOTHING"
                    + " RETURNING key)"
                    + " SELECT (SELECT pg_catalog.count(*) FROM holder), (SELECT pg_catalog.count(*) FROM claimed)";
            // by name when this JVM knows the lease (the primary key), else by token alone (a scan of the leases)
            String live = " AND l.expires_at OPERATOR(pg_catalog.>) pg_catalog.now() FOR SHARE),";
            String byKeyAndToken = " WHERE key OPERATOR(pg_catalog.=) ? AND token OPERATOR(pg_catalog.=) ?";
            return new Sql(
                    "WITH holder AS (SELECT l.name, l.token FROM " + l + " AS l WHERE l.name OPERATOR(pg_catalog.=) ?"
                            + " AND l.token OPERATOR(pg_catalog.=) ?" + live + insert,
                    "WITH holder AS (SELECT l.name, l.token FROM " + l + " AS l WHERE l.token OPERATOR(pg_catalog.=) ?"
                            + live + insert,
                    "UPDATE " + t + " SET done_at = pg_catalog.now()" + byKeyAndToken,
                    "UPDATE " + t + " SET failed = ?" + byKeyAndToken,
                    "DELETE FROM " + t + byKeyAndToken + " AND done_at IS NULL",
                    "DELETE FROM " + t + " WHERE key OPERATOR(pg_catalog.=) ?",
                    "CREATE TABLE IF NOT EXISTS " + t + " (key pg_catalog.text PRIMARY KEY, token bigint NOT NULL,"
                            + " lease pg_catalog.text NOT NULL, claimed_at pg_catalog.timestamptz NOT NULL,"
                            + " done_at pg_catalog.timestamptz, failed pg_catalog.text)");
        }
    }

    /** The statements, the tables' schemas resolved on {@code c} at the first call and kept. */
    private Sql sql(Connection c) throws SQLException {
        Sql fixed = sql;
        if (fixed == null) {
            fixed = Sql.of(LeaseSchema.qualified(c, table, "the Actions table"), LeaseSchema.qualified(c, leaseTable));
            sql = fixed;
        }
        return fixed;
    }

    public String table() {
        return table.toString();
    }

    /** Claims {@code key} under {@code token}; {@code lease} is its name when this JVM knows it, else null. */
    public Claim claim(String key, long token, @Nullable String lease) throws SQLException {
        return autocommit(c -> {
            try {
                return claim(c, key, token, lease);
            } catch (SQLException e) {
                if (!PgStates.UNDEFINED_TABLE.equals(e.getSQLState())) {
                    throw e;
                }
                create(c);
                return claim(c, key, token, lease);
            }
        });
    }

    /** Statements on one borrowed connection. */
    @FunctionalInterface
    private interface OnConnection<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} in autocommit on a connection of the data source, leaving the connection as it was. A claim
     * must be committed before its action runs, in a transaction of its own: never the caller's. A connection that
     * is in a caller's open transaction (Spring's {@code TransactionAwareDataSourceProxy} inside
     * {@code @Transactional} hands out the transaction's connection) is refused, since switching it to autocommit
     * would commit that transaction early; one with autocommit off and no transaction open yet is switched on for
     * these statements and back off after, which commits nothing of anyone's.
     */
    private <T> T autocommit(OnConnection<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (!autoCommit) {
                if (OpenTransactions.isOpen(c)) {
                    throw new FencingException(
                            "fenced: Actions needs a connection of its own, but the data source"
                                    + " handed out one in an open transaction (a caller's, such as Spring's"
                                    + " TransactionAwareDataSourceProxy inside @Transactional): recording the action in it would"
                                    + " commit that transaction early, or let the action run before its row is committed."
                                    + " Nothing was recorded or run, and the transaction was left alone; give Actions the pool"
                                    + " itself (a DataSource whose connections are not bound to the caller's transaction)",
                            PgStates.ACTIVE_SQL_TRANSACTION);
                }
                c.setAutoCommit(true);
            }
            try {
                return work.run(c);
            } finally {
                if (!autoCommit && !c.isClosed()) {
                    c.setAutoCommit(false);
                }
            }
        }
    }

    private Claim claim(Connection c, String key, long token, @Nullable String lease) throws SQLException {
        Sql statements = sql(c);
        try (PreparedStatement ps =
                c.prepareStatement(lease != null ? statements.claimByName() : statements.claimByToken())) {
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
            s.execute(sql(c).create());
        } catch (SQLException e) {
            // two processes creating it at once collide in the catalog (unique violation, duplicate table)
            String state = e.getSQLState();
            if (!PgStates.UNIQUE_VIOLATION.equals(state) && !PgStates.DUPLICATE_TABLE.equals(state)) {
                throw e;
            }
        }
    }

    public void done(String key, long token) throws SQLException {
        update(Sql::done, null, key, token);
    }

    public void failed(String key, long token, String failure) throws SQLException {
        update(Sql::failed, failure, key, token);
    }

    /** Gives a claimed, not done key back, so the next holder runs the action. */
    public void release(String key, long token) throws SQLException {
        update(Sql::release, null, key, token);
    }

    /** Deletes the row of {@code key} whoever claimed it: the action may run again. */
    public boolean forget(String key) throws SQLException {
        try {
            return autocommit(c -> {
                try (PreparedStatement ps = c.prepareStatement(sql(c).forget())) {
                    ps.setString(1, key);
                    return ps.executeUpdate() > 0;
                }
            });
        } catch (SQLException e) {
            if (PgStates.UNDEFINED_TABLE.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    private void update(
            java.util.function.Function<Sql, String> statement, @Nullable String text, String key, long token)
            throws SQLException {
        autocommit(c -> {
            try (PreparedStatement ps = c.prepareStatement(statement.apply(sql(c)))) {
                int i = 1;
                if (text != null) {
                    ps.setString(i++, text);
                }
                ps.setString(i++, key);
                ps.setLong(i, token);
                return ps.executeUpdate();
            }
        });
    }
}
