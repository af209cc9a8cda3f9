package dev.fenced.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * Whether a connection with autocommit off is inside an open transaction. pgjdbc starts a transaction with the
 * first statement after {@code setAutoCommit(false)}, and knows whether it has; a connection whose pgjdbc
 * object cannot be reached (another driver, a wrapper that hides it) counts as open, so nothing is committed on
 * a guess. {@link dev.fenced.Actions} and {@link dev.fenced.PlainLock} commit transactions of their own and refuse
 * a connection in a caller's open transaction (Spring's {@code TransactionAwareDataSourceProxy} inside
 * {@code @Transactional}), which they would commit early.
 */
public final class OpenTransactions {

    private OpenTransactions() {}

    public static boolean isOpen(Connection c) throws SQLException {
        if (c.getAutoCommit()) {
            return false;
        }
        if (!c.isWrapperFor(PGConnection.class)) {
            return true;
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        return !(pg instanceof BaseConnection base) || base.getTransactionState() != TransactionState.IDLE;
    }
}
