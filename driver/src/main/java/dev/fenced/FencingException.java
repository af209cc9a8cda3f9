package dev.fenced;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Base of every error fenced raises. SQLStates are in the implementation-defined class {@code FN}:
 *
 * <table>
 *   <caption>SQLStates</caption>
 *   <tr><td>{@value #SQLSTATE}</td><td>generic fenced error</td></tr>
 *   <tr><td>{@value StaleTokenException#SQLSTATE}</td><td>a newer token already wrote the row</td></tr>
 *   <tr><td>{@value UnfencedWriteException#SQLSTATE}</td><td>protected write without a token (enforce)</td></tr>
 *   <tr><td>{@value UnsupportedStatementException#SQLSTATE}</td><td>statement cannot be fenced safely</td></tr>
 *   <tr><td>{@value LeaseLostException#SQLSTATE}</td><td>the lease behind the token was lost</td></tr>
 *   <tr><td>{@value TokenDomainException#SQLSTATE}</td><td>the token's domain is not the table's</td></tr>
 *   <tr><td>{@value #CONFIGURATION}</td><td>bad configuration</td></tr>
 *   <tr><td>{@value #SCHEMA}</td><td>a protected table lacks its fence column</td></tr>
 *   <tr><td>{@value #TOKEN_DOMAIN_RECORDED}</td><td>the database records another token domain for a table</td></tr>
 *   <tr><td>{@value #LEASE_STORE}</td><td>the lease store cannot grant (standby, missing table)</td></tr>
 *   <tr><td>{@value #LEASE_TIMEOUT}</td><td>a lease could not be had within the wait</td></tr>
 *   <tr><td>{@value #LOCK_TIMEOUT}</td><td>a plain lock could not be had within its lock timeout</td></tr>
 *   <tr><td>{@value #LOCK_LOST}</td><td>a plain lock's transaction was ended by the server (idle too long), or the work tried to end it</td></tr>
 * </table>
 */
public class FencingException extends SQLException {

    private static final long serialVersionUID = 1L;

    public static final String SQLSTATE = "FN000";
    public static final String CONFIGURATION = "FN010";
    public static final String SCHEMA = "FN011";
    /** A protected table's token domain in the database's registry is not the one this configuration gives it. */
    public static final String TOKEN_DOMAIN_RECORDED = "FN012";
    public static final String LEASE_STORE = "FN020";
    public static final String LEASE_TIMEOUT = "FN021";
    public static final String LOCK_TIMEOUT = "FN030";
    public static final String LOCK_LOST = "FN031";

    public FencingException(String message) {
        super(message, SQLSTATE);
    }

    public FencingException(String message, String sqlState) {
        super(message, sqlState);
    }

    public FencingException(String message, String sqlState, @Nullable Throwable cause) {
        super(message, sqlState, cause);
    }
}
