package dev.fenced.internal.lease;

/**
 * How a fencing token is made: the server's WAL timeline in the high bits, the token sequence's next value
 * in the low {@value #SEQUENCE_BITS} bits.
 *
 * <p>A promoted standby may have missed the old primary's last grants (asynchronous replication: its sequence
 * is behind), and would hand those tokens out again. But PostgreSQL gives every promotion (and every
 * point-in-time recovery) a new, higher timeline, so every token a promoted server grants exceeds every token
 * the old primary could have granted, with no manual step. The timeline is read from the WAL position being
 * written ({@code pg_walfile_name(pg_current_wal_lsn())}, whose first 8 hex digits are the insert timeline):
 * that changes the moment a promoted server accepts writes, unlike {@code pg_control_checkpoint()}'s
 * timeline, which lags until the end-of-recovery checkpoint completes.
 *
 * <p>Tokens stay positive bigints and strictly increasing: the sequence grows within a timeline, the timeline
 * across them. {@value #SEQUENCE_BITS} bits are 8.8 trillion grants per timeline, {@value #TIMELINE_BITS}
 * bits a million timelines; a grant beyond either is refused (the token would be NULL, which the table's
 * NOT NULL constraint rejects), never wrapped.
 */
public final class Tokens {

    public static final int SEQUENCE_BITS = 43;
    public static final int TIMELINE_BITS = 63 - SEQUENCE_BITS;
    static final long SEQUENCE_LIMIT = 1L << SEQUENCE_BITS;
    static final long TIMELINE_LIMIT = 1L << TIMELINE_BITS;

    /** The server's current insert timeline, as a bigint. */
    static final String TIMELINE_SQL =
            "('x' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()), 1, 8))::bit(32)::bigint";

    private Tokens() {}

    /** The timeline a token was granted on. */
    public static long timelineOf(long token) {
        return token >>> SEQUENCE_BITS;
    }

    /** The sequence value a token was made from. */
    public static long sequenceOf(long token) {
        return token & (SEQUENCE_LIMIT - 1);
    }

    static long token(long timeline, long sequenceValue) {
        return timeline * SEQUENCE_LIMIT + sequenceValue;
    }

    /** What a grant's error message holds when the drawn token was not above the highest one granted. */
    static final String BEHIND_MARKER = "fenced-token-behind:";

    /**
     * {@code next} (a token expression) when it exceeds {@code previous} (NULL: nothing granted yet); else the
     * statement fails with a cast error naming {@link #BEHIND_MARKER} and the previous token, so the grant is
     * refused, never granted again or lower.
     */
    static String aboveSql(String next, String previous) {
        return "(SELECT CASE WHEN n.v IS NULL OR n.v OPERATOR(pg_catalog.>) COALESCE(" + previous
                + ", 0) THEN n.v ELSE CAST('" + BEHIND_MARKER + "' OPERATOR(pg_catalog.||) " + previous
                + " AS bigint) END FROM (SELECT " + next + " AS v) AS n)";
    }

    /** A scalar SQL expression: the next token, drawing one sequence value (NULL beyond the limits). */
    static String nextTokenSql(LeaseTableName table) {
        return "(SELECT CASE WHEN s.v OPERATOR(pg_catalog.<) " + SEQUENCE_LIMIT + " AND e.tli OPERATOR(pg_catalog.<) "
                + TIMELINE_LIMIT + " THEN e.tli OPERATOR(pg_catalog.*) " + SEQUENCE_LIMIT
                + " OPERATOR(pg_catalog.+) s.v END FROM (SELECT pg_catalog.nextval(" + table.sequenceLiteral()
                + ") AS v) AS s, (SELECT "
                + TIMELINE_SQL + " AS tli) AS e)";
    }
}
