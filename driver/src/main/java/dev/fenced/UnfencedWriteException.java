package dev.fenced;

/** A write to a protected table was attempted with no token bound, in enforce mode. Nothing was sent. */
public class UnfencedWriteException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** This exception's SQLState, {@link FencedSqlState#UNFENCED_WRITE}. */
    public static final String SQLSTATE = "FN002";

    private final String table;

    public UnfencedWriteException(String table) {
        super(
                "fenced: write to protected table " + table + " refused: no fencing token is bound to this thread"
                        + " (take a Lease, use Fencing.bind(token), or run it inside Fencing.unfenced(...))",
                SQLSTATE);
        this.table = table;
    }

    public String table() {
        return table;
    }
}
