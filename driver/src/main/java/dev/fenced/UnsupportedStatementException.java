package dev.fenced;

/**
 * A statement touches a protected table in a way fenced cannot fence safely (MERGE, TRUNCATE,
 * {@code WHERE CURRENT OF}, SQL the parser cannot read, ...). It was refused rather than passed through
 * unfenced. The message names the table and the construct.
 */
public class UnsupportedStatementException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** This exception's SQLState, {@link FencedSqlState#UNSUPPORTED_STATEMENT}. */
    public static final String SQLSTATE = FencedSqlState.UNSUPPORTED_STATEMENT.code();

    private final String table;
    private final String construct;

    public UnsupportedStatementException(String table, String construct) {
        super("fenced: statement on protected table " + table + " refused: " + construct, SQLSTATE);
        this.table = table;
        this.construct = construct;
    }

    /** The protected table (or tables, comma separated) the statement touches. */
    public String table() {
        return table;
    }

    /** What made the statement unfenceable. */
    public String construct() {
        return construct;
    }
}
