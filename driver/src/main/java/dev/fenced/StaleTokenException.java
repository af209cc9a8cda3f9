package dev.fenced;

/**
 * A write carried a token older than the one a row already holds: a writer with a newer token has written the row
 * since this writer's token was granted. Nothing was changed by the statement. Usually this writer's lease was
 * taken over and it must stop (to go on: take the lease again and read fresh data). The database cannot tell that
 * from a second lease name (or token domain) writing the same rows, where the refused writer still holds its own
 * lease: use one lease name (or one token domain) per set of rows. The message says only what is known.
 */
public class StaleTokenException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** This exception's SQLState, {@link FencedSqlState#STALE_TOKEN}. */
    public static final String SQLSTATE = "FN001";

    private final String table;
    private final long token;
    private final long rowToken;

    public StaleTokenException(String table, long token, long rowToken, Throwable cause) {
        super(
                "fenced: stale write refused on table " + table + ": token " + rowToken + " wrote the row and this"
                        + " write's token " + token + " is older; nothing was changed. Either a newer holder took"
                        + " this writer's lease (stop, take it again, read fresh data) or another lease name or"
                        + " token domain writes the same rows (use one lease name (or one token domain) per set of"
                        + " rows, see docs/leases.md)",
                SQLSTATE,
                cause);
        this.table = table;
        this.token = token;
        this.rowToken = rowToken;
    }

    /** The protected table the refused write was aimed at. */
    public String table() {
        return table;
    }

    /** The token the refused write carried. */
    public long token() {
        return token;
    }

    /** The newer token found on the row. */
    public long rowToken() {
        return rowToken;
    }
}
