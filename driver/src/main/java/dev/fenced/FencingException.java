package dev.fenced;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Base of every error fenced raises. Its SQLStates, in the implementation-defined class {@code FN}, are listed with
 * their meaning in {@link FencedSqlState}; the constants here are their codes (compile-time constants).
 */
public class FencingException extends SQLException {

    private static final long serialVersionUID = 1L;

    /** {@link FencedSqlState#FENCING_ERROR}. */
    public static final String SQLSTATE = "FN000";
    /** {@link FencedSqlState#CONFIGURATION}. */
    public static final String CONFIGURATION = "FN010";
    /** {@link FencedSqlState#SCHEMA}. */
    public static final String SCHEMA = "FN011";
    /** {@link FencedSqlState#NOTHING_PROTECTED}. */
    public static final String NOTHING_PROTECTED = "FN013";
    /** {@link FencedSqlState#TOKEN_DOMAIN_RECORDED}. */
    public static final String TOKEN_DOMAIN_RECORDED = "FN012";
    /** {@link FencedSqlState#LEASE_STORE}. */
    public static final String LEASE_STORE = "FN020";
    /** {@link FencedSqlState#LEASE_TIMEOUT}. */
    public static final String LEASE_TIMEOUT = "FN021";
    /** {@link FencedSqlState#LOCK_TIMEOUT}. */
    public static final String LOCK_TIMEOUT = "FN030";
    /** {@link FencedSqlState#LOCK_LOST}. */
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
