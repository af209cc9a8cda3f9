package dev.fenced.jdbc;

import dev.fenced.StaleTokenException;
import dev.fenced.metrics.FencedMetrics;
import dev.fenced.sql.StaleMarker;
import java.sql.SQLException;

/**
 * Recognises the error a fenced statement's guard raises when a row holds a newer token (a failed cast of
 * {@code 'fenced-stale:<row token>:<nonce>:<table>'}, SQLSTATE 22P02) and turns it into
 * {@link StaleTokenException}. Searches the cause and next-exception chains, as batches nest it.
 */
final class StaleWrites {

    private static final String INVALID_TEXT_REPRESENTATION = "22P02";

    private StaleWrites() {
    }

    /** The exception to throw for {@code e}, raised by a statement that carried {@code token}. */
    static SQLException translate(SQLException e, long token) {
        for (Throwable t = e; t != null; t = next(t)) {
            if (t instanceof SQLException s && INVALID_TEXT_REPRESENTATION.equals(s.getSQLState())
                    && s.getMessage() != null) {
                StaleTokenException stale = stale(s.getMessage(), token, e);
                if (stale != null) {
                    return stale;
                }
            }
        }
        return e;
    }

    /** The guard's own marker in a message ({@link StaleMarker}: this runtime's nonce, exactly). */
    private static StaleTokenException stale(String message, long token, SQLException cause) {
        StaleMarker.Found found = StaleMarker.find(message);
        if (found == null) {
            return null;
        }
        FencedMetrics.staleWriteRefused(found.table());
        return new StaleTokenException(found.table(), token, found.rowToken(), cause);
    }

    private static Throwable next(Throwable t) {
        if (t instanceof SQLException s && s.getNextException() != null && s.getNextException() != t) {
            return s.getNextException();
        }
        return t.getCause() == t ? null : t.getCause();
    }
}
