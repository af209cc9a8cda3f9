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
    /**
     * What the tombstone check raises ({@link TombstoneSchema}): {@code fenced-tombstone:<newer token>:<table>},
     * with its own SQLSTATE, so only that check can produce it.
     */
    private static final String TOMBSTONE_MARKER = "fenced-tombstone:";

    private static int endOfLine(String message, int from) {
        int nl = message.indexOf('\n', from);
        return nl < 0 ? message.length() : nl;
    }

    private StaleWrites() {
    }

    /** The exception to throw for {@code e}, raised by a statement that carried {@code token}. */
    static SQLException translate(SQLException e, long token) {
        for (Throwable t = e; t != null; t = next(t)) {
            if (t instanceof SQLException s && TombstoneSchema.SQLSTATE.equals(s.getSQLState()) && s.getMessage() != null) {
                StaleTokenException stale = stale(s.getMessage(), TOMBSTONE_MARKER, token, e);
                if (stale != null) {
                    return stale;
                }
            }
            if (t instanceof SQLException s && INVALID_TEXT_REPRESENTATION.equals(s.getSQLState())
                    && s.getMessage() != null) {
                StaleTokenException stale = stale(s.getMessage(), MARKER, token, e);
                if (stale != null) {
                    return stale;
                }
            }
        }
        return e;
    }

    /**
     * Finds {@code fenced-stale:<digits>:<table>} in a message. The marker's prefix also appears in the
     * statement text that some messages quote (a batch entry), so only a marker followed by a number counts.
     */
    private static StaleTokenException stale(String message, String marker, long token, SQLException cause) {
        for (int at = message.indexOf(marker); at >= 0; at = message.indexOf(marker, at + 1)) {
            int from = at + marker.length();
            int colon = from;
            while (colon < message.length() && Character.isDigit(message.charAt(colon))) {
                colon++;
            }
            if (colon == from || colon >= message.length() || message.charAt(colon) != ':') {
                continue;
            }
            long rowToken = Long.parseLong(message.substring(from, colon));
            int end = marker == TOMBSTONE_MARKER ? endOfLine(message, colon + 1) : message.indexOf('"', colon + 1);
            String table = message.substring(colon + 1, end < 0 ? message.length() : end);
            FencedMetrics.staleWriteRefused(table);
            return new StaleTokenException(table, token, rowToken, cause);
        }
        return null;
    }

    private static Throwable next(Throwable t) {
        if (t instanceof SQLException s && s.getNextException() != null && s.getNextException() != t) {
            return s.getNextException();
        }
        return t.getCause() == t ? null : t.getCause();
    }
}
