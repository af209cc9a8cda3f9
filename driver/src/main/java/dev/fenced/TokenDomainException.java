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
        this(
                table,
                tableDomain,
                tokenDomain,
                "fenced: write to protected table " + table + " refused: its token domain is '" + tableDomain
                        + "' but the bound token is of domain '" + tokenDomain
                        + "'. Tokens of two sources are unrelated numbers"
                        + " and must never meet on a row: bind a token of '" + tableDomain + "' (Fencing.bind(\""
                        + tableDomain
                        + "\", token)"
                        + (Fencing.FENCED_DOMAIN.equals(tableDomain) ? ", a Lease or Fencing.bind(token)" : "")
                        + "), or write this table from the lock service it belongs to");
    }

    private TokenDomainException(String table, String tableDomain, String tokenDomain, String message) {
        super(message, SQLSTATE);
        this.table = table;
        this.tableDomain = tableDomain;
        this.tokenDomain = tokenDomain;
    }

    /**
     * A lease token of domain {@code domain} drawn by the lease table of database {@code tokenOrigin}, written to a
     * table of database {@code tableOrigin}: each database's lease table counts on its own, so its tokens fence that
     * database only. The message names the fix: one lease over several databases takes a named token domain.
     */
    public static TokenDomainException drawnInAnotherDatabase(
            String table, String domain, String tokenOrigin, String tableOrigin) {
        return new TokenDomainException(
                table,
                domain,
                domain,
                "fenced: write to protected table " + table + " refused: the bound token, of domain '" + domain
                        + "', was drawn by the lease table of another database (" + tokenOrigin + "; this table is in "
                        + tableOrigin + "). Each database's lease table counts on its own, so a token of domain '"
                        + domain + "' fences only its own database's rows. To fence several databases with one lease,"
                        + " give its store a token domain of its own (LeaseManager.builder(dataSource)"
                        + ".tokenDomain(\"jobs\"), or PostgresLeaseStore.create(dataSource, table, createTable,"
                        + " \"jobs\")) and set fenced.tokenDomain=jobs in every database it writes; or take the lease"
                        + " from this database's own lease table");
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
