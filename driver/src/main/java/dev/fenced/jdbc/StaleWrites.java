package dev.fenced.jdbc;

import dev.fenced.StaleTokenException;
import dev.fenced.metrics.FencedMetrics;
import java.sql.SQLException;

/**
 * Recognises the error a fenced statement's guard raises when a row holds a newer token (a failed cast of
 * {@code 'fenced-stale:<row token>:<table>'}, SQLSTATE 22P02) and turns it into
 * {@link StaleTokenException}. Searches the cause and next-exception chains, as batches nest it.
 */
final class StaleWrites {

    private static final String MARKER = "fenced-stale:";
    private static final String INVALID_TEXT_REPRESENTATION = "22P02";

    private StaleWrites() {
    }

    /** The exception to throw for {@code e}, raised by a statement that carried {@code token}. */
    static SQLException translate(SQLException e, long token) {
        for (Throwable t = e; t != null; t = next(t)) {
            if (t instanceof SQLException s && INVALID_TEXT_REPRESENTATION.equals(s.getSQLState())) {
                String message = s.getMessage();
                int at = message == null ? -1 : message.indexOf(MARKER);
                if (at >= 0) {
                    return stale(message, at + MARKER.length(), token, e);
                }
            }
        }
        return e;
    }

    private static SQLException stale(String message, int from, long token, SQLException cause) {
        int colon = message.indexOf(':', from);
        long rowToken;
        try {
            rowToken = Long.parseLong(message.substring(from, colon));
        } catch (RuntimeException ex) {
            return cause;
        }
        int end = message.indexOf('"', colon + 1);
        String table = message.substring(colon + 1, end < 0 ? message.length() : end);
        FencedMetrics.staleWriteRefused(table);
        return new StaleTokenException(table, token, rowToken, cause);
    }

    private static Throwable next(Throwable t) {
        if (t instanceof SQLException s && s.getNextException() != null && s.getNextException() != t) {
            return s.getNextException();
        }
        return t.getCause() == t ? null : t.getCause();
    }
}
