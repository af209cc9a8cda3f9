package dev.fenced;

/**
 * A write carried a token older than the one a row already holds: a newer holder has written since this
 * holder's lease was granted. Nothing was changed by the statement. The holder has lost its lease and
 * must stop; to go on it must take the lease again and read fresh data.
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
                "fenced: stale write refused on table " + table + ": this writer holds token " + token
                        + " but a row was already written with token " + rowToken
                        + "; the lease was lost, stop and re-acquire it",
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
