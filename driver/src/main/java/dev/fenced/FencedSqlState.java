package dev.fenced;

import java.sql.SQLException;

/**
 * Every SQLState fenced raises of its own, in the implementation-defined class {@code FN}: the one list of them.
 * Where fenced reports a standard condition (a bad parameter index, an unsupported feature, a connection it cannot
 * make) it uses PostgreSQL's standard SQLState instead, as pgjdbc would.
 *
 * <table>
 *   <caption>fenced's SQLStates</caption>
 *   <tr><th>code</th><th>constant</th><th>raised as</th><th>meaning</th></tr>
 *   <tr><td>FN000</td><td>{@link #FENCING_ERROR}</td><td>{@link FencingException}</td><td>generic fenced error</td></tr>
 *   <tr><td>FN001</td><td>{@link #STALE_TOKEN}</td><td>{@link StaleTokenException}</td><td>a newer token already
 *       wrote the row</td></tr>
 *   <tr><td>FN002</td><td>{@link #UNFENCED_WRITE}</td><td>{@link UnfencedWriteException}</td><td>protected write
 *       without a token (enforce)</td></tr>
 *   <tr><td>FN003</td><td>{@link #UNSUPPORTED_STATEMENT}</td><td>{@link UnsupportedStatementException}</td>
 *       <td>statement cannot be fenced safely</td></tr>
 *   <tr><td>FN004</td><td>{@link #LEASE_LOST}</td><td>{@link LeaseLostException}</td><td>the lease behind the token
 *       was lost</td></tr>
 *   <tr><td>FN005</td><td>{@link #TOKEN_DOMAIN}</td><td>{@link TokenDomainException}</td><td>the token's domain is
 *       not the table's</td></tr>
 *   <tr><td>FN010</td><td>{@link #CONFIGURATION}</td><td>{@link FencingException}</td><td>bad configuration</td></tr>
 *   <tr><td>FN011</td><td>{@link #SCHEMA}</td><td>{@link FencingException}</td><td>a protected table lacks its fence
 *       column (or is otherwise not ready)</td></tr>
 *   <tr><td>FN012</td><td>{@link #TOKEN_DOMAIN_RECORDED}</td><td>{@link FencingException}</td><td>the database
 *       records another token domain for a table</td></tr>
 *   <tr><td>FN013</td><td>{@link #NOTHING_PROTECTED}</td><td>{@link FencingException}</td><td>a fenced URL or
 *       DataSource lists no protected table ({@code fenced.tables}) and is not {@code fenced.mode=off}</td></tr>
 *   <tr><td>FN020</td><td>{@link #LEASE_STORE}</td><td>{@link FencingException}</td><td>the lease store cannot grant
 *       (standby, missing table)</td></tr>
 *   <tr><td>FN021</td><td>{@link #LEASE_TIMEOUT}</td><td>{@link FencingException}</td><td>a lease could not be had
 *       within the wait</td></tr>
 *   <tr><td>FN030</td><td>{@link #LOCK_TIMEOUT}</td><td>{@link FencingException}</td><td>a plain lock could not be
 *       had within its lock timeout</td></tr>
 *   <tr><td>FN031</td><td>{@link #LOCK_LOST}</td><td>{@link FencingException}</td><td>a plain lock's transaction was
 *       ended by the server (idle too long), or the work tried to end it</td></tr>
 *   <tr><td>FNT01</td><td>{@link #TOMBSTONE_CHECK}</td><td>the server's error ({@link SQLException})</td><td>the
 *       tombstone insert check, inside PostgreSQL, refused to bring back a row a newer holder deleted; through
 *       fenced it arrives as FN001, so only a write that bypasses the driver sees it</td></tr>
 * </table>
 */
public enum FencedSqlState {
    // The codes are the exceptions' compile-time constants (usable as case labels), named here once each.
    FENCING_ERROR(FencingException.SQLSTATE, FencingException.class, "generic fenced error"),
    STALE_TOKEN(StaleTokenException.SQLSTATE, StaleTokenException.class, "a newer token already wrote the row"),
    UNFENCED_WRITE(
            UnfencedWriteException.SQLSTATE, UnfencedWriteException.class, "protected write without a token (enforce)"),
    UNSUPPORTED_STATEMENT(
            UnsupportedStatementException.SQLSTATE,
            UnsupportedStatementException.class,
            "statement cannot be fenced safely"),
    LEASE_LOST(LeaseLostException.SQLSTATE, LeaseLostException.class, "the lease behind the token was lost"),
    TOKEN_DOMAIN(TokenDomainException.SQLSTATE, TokenDomainException.class, "the token's domain is not the table's"),
    CONFIGURATION(FencingException.CONFIGURATION, FencingException.class, "bad configuration"),
    SCHEMA(FencingException.SCHEMA, FencingException.class, "a protected table lacks its fence column"),
    TOKEN_DOMAIN_RECORDED(
            FencingException.TOKEN_DOMAIN_RECORDED,
            FencingException.class,
            "the database records another token domain for a table"),
    NOTHING_PROTECTED(
            FencingException.NOTHING_PROTECTED,
            FencingException.class,
            "a fenced URL or DataSource lists no protected table (fenced.tables)"),
    LEASE_STORE(
            FencingException.LEASE_STORE,
            FencingException.class,
            "the lease store cannot grant (standby, missing table)"),
    LEASE_TIMEOUT(FencingException.LEASE_TIMEOUT, FencingException.class, "a lease could not be had within the wait"),
    LOCK_TIMEOUT(
            FencingException.LOCK_TIMEOUT,
            FencingException.class,
            "a plain lock could not be had within its lock timeout"),
    LOCK_LOST(
            FencingException.LOCK_LOST,
            FencingException.class,
            "a plain lock's transaction was ended by the server, or the work" + " tried to end it"),
    /** Raised by the tombstone insert check inside PostgreSQL, with a code data cannot produce. */
    TOMBSTONE_CHECK("FNT01", SQLException.class, "the tombstone insert check refused to bring back a deleted row");

    private final String code;
    private final Class<? extends SQLException> raisedAs;
    private final String meaning;

    FencedSqlState(String code, Class<? extends SQLException> raisedAs, String meaning) {
        this.code = code;
        this.raisedAs = raisedAs;
        this.meaning = meaning;
    }

    /** The five-character SQLState, as {@link SQLException#getSQLState()} returns it. */
    public String code() {
        return code;
    }

    /** The exception class that carries it. */
    public Class<? extends SQLException> raisedAs() {
        return raisedAs;
    }

    /** What it means, in a few words. */
    public String meaning() {
        return meaning;
    }

    /** True when {@code e} carries this SQLState. */
    public boolean matches(SQLException e) {
        return e != null && code.equals(e.getSQLState());
    }
}
