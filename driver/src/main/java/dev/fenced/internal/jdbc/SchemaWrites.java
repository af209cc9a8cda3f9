package dev.fenced.internal.jdbc;

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

    /** One statement without parameters. */
    static void run(Connection c, String sql) throws SQLException {
        run(c, conn -> {
            try (java.sql.Statement s = conn.createStatement()) {
                s.execute(sql);
            }
        });
    }
}
