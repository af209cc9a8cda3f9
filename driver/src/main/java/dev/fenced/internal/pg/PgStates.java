package dev.fenced.internal.pg;

/**
 * The standard SQLStates fenced tests for in the server's errors, or reports itself for a standard condition (as
 * pgjdbc would): each declared once, named as PostgreSQL's errcodes.txt names it. fenced's own states are
 * {@link dev.fenced.FencedSqlState}. Constants, so a {@code switch} over a state can use them.
 */
public final class PgStates {

    /** 08001: fenced cannot make the delegate connection (no pgjdbc, a bad URL). */
    public static final String UNABLE_TO_CONNECT = "08001";
    /** 08004: the connection is refused for a setting fenced cannot work with. */
    public static final String CONNECTION_REJECTED = "08004";
    /** 0A000. */
    public static final String FEATURE_NOT_SUPPORTED = "0A000";
    /** 22000: a stream parameter could not be read. */
    public static final String DATA_EXCEPTION = "22000";
    /** 22023: a parameter index out of range; also what a fenced UPDATE's guard raises on a stale token. */
    public static final String INVALID_PARAMETER_VALUE = "22023";
    /** 22P02: what a fenced DELETE's guard (a cast to boolean) raises on a stale token. */
    public static final String INVALID_TEXT_REPRESENTATION = "22P02";
    /** 23502. */
    public static final String NOT_NULL_VIOLATION = "23502";
    /** 23505. */
    public static final String UNIQUE_VIOLATION = "23505";
    /** 25001: work that must not run inside an open transaction. */
    public static final String ACTIVE_SQL_TRANSACTION = "25001";
    /** 25006: every write on a standby, or with default_transaction_read_only. */
    public static final String READ_ONLY_SQL_TRANSACTION = "25006";
    /** 25P03: the server ended a transaction left idle too long. */
    public static final String IDLE_IN_TRANSACTION_SESSION_TIMEOUT = "25P03";
    /** 40001: worth retrying the transaction. */
    public static final String SERIALIZATION_FAILURE = "40001";
    /** 40P01: worth retrying the transaction. */
    public static final String DEADLOCK_DETECTED = "40P01";
    /** 42501. */
    public static final String INSUFFICIENT_PRIVILEGE = "42501";
    /** 42P01. */
    public static final String UNDEFINED_TABLE = "42P01";
    /** 42P07. */
    public static final String DUPLICATE_TABLE = "42P07";
    /** 42710: e.g. a trigger of that name exists. */
    public static final String DUPLICATE_OBJECT = "42710";
    /** 42723. */
    public static final String DUPLICATE_FUNCTION = "42723";
    /** 55000: e.g. pg_stat_statements installed but not loaded. */
    public static final String OBJECT_NOT_IN_PREREQUISITE_STATE = "55000";
    /** 55P03: NOWAIT or lock_timeout. */
    public static final String LOCK_NOT_AVAILABLE = "55P03";
    /** 57014: a statement cancelled (statement_timeout, or fenced giving up on a call). */
    public static final String QUERY_CANCELED = "57014";

    private PgStates() {}
}
