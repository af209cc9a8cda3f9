package dev.fenced;

/**
 * A write to a protected table under a token of another domain than the table's (see {@link Fencing#bind(String,
 * long)}), in enforce mode. Nothing was sent: tokens of two sources are unrelated numbers, and a row fenced with one cannot check the other.
 */
public class TokenDomainException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** This exception's SQLState, {@link FencedSqlState#TOKEN_DOMAIN}. */
    public static final String SQLSTATE = "FN005";

    private final String table;
    private final String tableDomain;
    private final String tokenDomain;

    public TokenDomainException(String table, String tableDomain, String tokenDomain) {
        super(
                "fenced: write to protected table " + table + " refused: its token domain is '" + tableDomain
                        + "' but the bound token is of domain '" + tokenDomain
                        + "'. Tokens of two sources are unrelated numbers"
                        + " and must never meet on a row: bind a token of '" + tableDomain + "' (Fencing.bind(\""
                        + tableDomain
                        + "\", token)"
                        + (Fencing.FENCED_DOMAIN.equals(tableDomain) ? ", a Lease or Fencing.bind(token)" : "")
                        + "), or write this table from the lock service it belongs to",
                SQLSTATE);
        this.table = table;
        this.tableDomain = tableDomain;
        this.tokenDomain = tokenDomain;
    }

    public String table() {
        return table;
    }

    /** The table's token domain, as configured. */
    public String tableDomain() {
        return tableDomain;
    }

    /** The domain of the token the write carried. */
    public String tokenDomain() {
        return tokenDomain;
    }
}
