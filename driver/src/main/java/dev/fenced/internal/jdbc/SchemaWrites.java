package dev.fenced.internal.jdbc;

import dev.fenced.internal.pg.SchemaLock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * How fenced writes its own objects at connect (the tombstone table and checks, the token-domain registry). Inside
 * the application's transaction (a catalog re-read right after its own DDL, a migration adding the fence column) the
 * write runs there, so it arrives or goes with that transaction, under a savepoint, so a failure of ours does not
 * abort the application's transaction.
 */
final class SchemaWrites {

    /** One piece of SQL work on the connection. */
    interface Work {
        void run(Connection c) throws SQLException;
    }

    private SchemaWrites() {}

    static void run(Connection c, Work work) throws SQLException {
        if (c.getAutoCommit()) {
            work.run(c);
            return;
        }
        Savepoint savepoint = c.setSavepoint();
        try {
            work.run(c);
            c.releaseSavepoint(savepoint);
        } catch (SQLException | RuntimeException e) {
            c.rollback(savepoint);
            throw e;
        }
    }

    /**
     * Runs {@code work}, which looks for fenced's objects and creates what is missing, under {@link SchemaLock}: in a
     * transaction of its own in autocommit (committed at the end, so the lock is held exactly while creating), else
     * in the application's transaction under a savepoint (the lock is then held until that transaction ends).
     * {@code work} must look again under the lock: another session may have created everything while this one
     * waited. A race the lock could not prevent ("already exists" from a session that did not take it) is not a
     * failure: the work runs once more, and finds the objects.
     */
    static void runLocked(Connection c, Work work) throws SQLException {
        try {
            lockedOnce(c, work);
        } catch (SQLException | RuntimeException e) {
            if (!SchemaLock.alreadyExists(e)) {
                throw e;
            }
            lockedOnce(c, work);
        }
    }

    private static void lockedOnce(Connection c, Work work) throws SQLException {
        if (!c.getAutoCommit()) {
            run(c, conn -> {
                SchemaLock.take(conn);
                work.run(conn);
            });
            return;
        }
        c.setAutoCommit(false);
        try {
            SchemaLock.take(c);
            work.run(c);
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** One statement without parameters. */
    static void run(Connection c, String sql) throws SQLException {
        run(c, conn -> {
            try (java.sql.Statement s = conn.createStatement()) {
                s.execute(sql);
            }
        });
    }
}
