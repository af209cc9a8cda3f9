package dev.fenced.internal.jdbc;

import dev.fenced.FencedSqlState;
import dev.fenced.FencingException;
import dev.fenced.StaleTokenException;
import dev.fenced.internal.metrics.Tracker;
import dev.fenced.internal.pg.PgStates;
import dev.fenced.internal.sql.StaleMarker;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Recognises the error a fenced statement's guard raises when a row holds a newer token
 * ({@code 'fenced-stale:<row token>:<nonce>:<table>'} rejected: by {@code pg_size_bytes} in an UPDATE's guard,
 * SQLSTATE 22023, by a cast to boolean in a DELETE's, 22P02) and turns it into
 * {@link StaleTokenException}. Searches the cause and next-exception chains, as batches nest it.
 */
final class StaleWrites {

    /**
     * What the tombstone check raises ({@link TombstoneSchema}): {@code fenced-tombstone:<newer token>:<table>},
     * with its own SQLSTATE, so only that check can produce it.
     */
    private static final String TOMBSTONE_MARKER = "fenced-tombstone:";

    private static int endOfLine(String message, int from) {
        int nl = message.indexOf('\n', from);
        return nl < 0 ? message.length() : nl;
    }

    private StaleWrites() {}

    /**
     * The text a fenced DELETE's tombstone part fails with when its table has no enabled insert check
     * ({@code Tombstones.checkInPlace}): PostgreSQL reports it as a cast to boolean of that text (22P02).
     */
    static final String CHECK_MISSING = "fenced: the tombstone check trigger of ";

    /**
     * {@link #CHECK_MISSING} as the server quotes the value it could not cast. Only this form counts: a batch's
     * message also holds the statement's text, where the same words stand as a literal of a DELETE that may have
     * failed for another reason (a stale row).
     */
    private static final String SERVER_CHECK_MISSING = "\"" + CHECK_MISSING;

    /** The exception to throw for {@code e}, raised by a statement that carried {@code token}; a stale one is counted. */
    static SQLException translate(SQLException e, long token, Tracker tracker) {
        for (Throwable t = e; t != null; t = next(t)) {
            if (t instanceof SQLException s
                    && PgStates.INVALID_TEXT_REPRESENTATION.equals(s.getSQLState())
                    && s.getMessage() != null
                    && s.getMessage().contains(SERVER_CHECK_MISSING)) {
                return checkMissing(s.getMessage(), e);
            }
            if (t instanceof SQLException s && FencedSqlState.TOMBSTONE_CHECK.matches(s) && s.getMessage() != null) {
                StaleTokenException stale = tombstoneStale(s.getMessage(), token, e);
                if (stale != null) {
                    return counted(stale, tracker);
                }
            }
            if (t instanceof SQLException s
                    && (PgStates.INVALID_TEXT_REPRESENTATION.equals(s.getSQLState())
                            || PgStates.INVALID_PARAMETER_VALUE.equals(s.getSQLState()))
                    && s.getMessage() != null) {
                StaleTokenException stale = guardStale(s.getMessage(), token, e);
                if (stale != null) {
                    return counted(stale, tracker);
                }
            }
        }
        return e;
    }

    /**
     * The table was dropped and created again behind fenced's back, so it lost the tombstone check: nothing was
     * deleted, and the caller has the catalog read again (which restores the check), so the statement can be retried.
     * Never the server's raw "invalid input syntax for type boolean".
     */
    private static FencingException checkMissing(String message, SQLException cause) {
        int from = message.indexOf(SERVER_CHECK_MISSING) + SERVER_CHECK_MISSING.length();
        int to = message.indexOf(" is missing or disabled", from);
        String table = to < 0 ? "a protected table" : message.substring(from, to);
        return new FencingException(
                "fenced: the tombstone check trigger of " + table + " is missing or disabled (the table was created"
                        + " again since fenced read the catalog); nothing was deleted. fenced reads the catalog again"
                        + " and restores the check before the next statement: retry the DELETE (in a new transaction"
                        + " if this one was open)",
                FencingException.SCHEMA,
                cause);
    }

    /** True when {@code e} is the failure {@link #checkMissing} makes. */
    static boolean isCheckMissing(SQLException e) {
        return e instanceof FencingException
                && FencingException.SCHEMA.equals(e.getSQLState())
                && e.getMessage() != null
                && e.getMessage().startsWith(CHECK_MISSING);
    }

    private static StaleTokenException counted(StaleTokenException stale, Tracker tracker) {
        tracker.staleWriteRefused(stale.table());
        return stale;
    }

    /** The guard's own marker in a message ({@link StaleMarker}: this runtime's nonce, exactly). */
    private static @Nullable StaleTokenException guardStale(String message, long token, SQLException cause) {
        StaleMarker.Found found = StaleMarker.find(message);
        if (found == null) {
            return null;
        }
        return new StaleTokenException(found.table(), token, found.rowToken(), cause);
    }

    /**
     * Finds {@code fenced-tombstone:<digits>:<table>} (to the end of the line) in a message of the tombstone
     * check's own SQLSTATE.
     */
    private static @Nullable StaleTokenException tombstoneStale(String message, long token, SQLException cause) {
        for (int at = message.indexOf(TOMBSTONE_MARKER); at >= 0; at = message.indexOf(TOMBSTONE_MARKER, at + 1)) {
            int from = at + TOMBSTONE_MARKER.length();
            int colon = from;
            while (colon < message.length() && Character.isDigit(message.charAt(colon))) {
                colon++;
            }
            if (colon == from || colon - from > 19 || colon >= message.length() || message.charAt(colon) != ':') {
                continue;
            }
            long rowToken = Long.parseLong(message.substring(from, colon));
            String table = message.substring(colon + 1, endOfLine(message, colon + 1));
            return new StaleTokenException(table, token, rowToken, cause);
        }
        return null;
    }

    private static @Nullable Throwable next(Throwable t) {
        if (t instanceof SQLException s && s.getNextException() != null && s.getNextException() != t) {
            return s.getNextException();
        }
        return t.getCause() == t ? null : t.getCause();
    }
}
