package dev.fenced;

import java.sql.SQLException;

/**
 * Base of every error fenced raises. Its SQLStates, in the implementation-defined class {@code FN}, are listed with
 * their meaning in {@link FencedSqlState}; the constants here are their codes.
 */
public class FencingException extends SQLException {

    private static final long serialVersionUID = 1L;

    /** {@link FencedSqlState#FENCING_ERROR}. */
    public static final String SQLSTATE = FencedSqlState.FENCING_ERROR.code();
    /** {@link FencedSqlState#CONFIGURATION}. */
    public static final String CONFIGURATION = FencedSqlState.CONFIGURATION.code();
    /** {@link FencedSqlState#SCHEMA}. */
    public static final String SCHEMA = FencedSqlState.SCHEMA.code();
    /** {@link FencedSqlState#TOKEN_DOMAIN_RECORDED}. */
    public static final String TOKEN_DOMAIN_RECORDED = FencedSqlState.TOKEN_DOMAIN_RECORDED.code();
    /** {@link FencedSqlState#LEASE_STORE}. */
    public static final String LEASE_STORE = FencedSqlState.LEASE_STORE.code();
    /** {@link FencedSqlState#LEASE_TIMEOUT}. */
    public static final String LEASE_TIMEOUT = FencedSqlState.LEASE_TIMEOUT.code();
    /** {@link FencedSqlState#LOCK_TIMEOUT}. */
    public static final String LOCK_TIMEOUT = FencedSqlState.LOCK_TIMEOUT.code();
    /** {@link FencedSqlState#LOCK_LOST}. */
    public static final String LOCK_LOST = FencedSqlState.LOCK_LOST.code();

    public FencingException(String message) {
        super(message, SQLSTATE);
    }

    public FencingException(String message, String sqlState) {
        super(message, sqlState);
    }

    public FencingException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}
