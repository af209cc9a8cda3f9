package dev.fenced;

import org.jspecify.annotations.Nullable;

/**
 * The lease whose token this thread writes with has been lost (its renewal failed or its deadline
 * passed). Raised on the client before the write reaches the database.
 */
public class LeaseLostException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** This exception's SQLState, {@link FencedSqlState#LEASE_LOST}. */
    public static final String SQLSTATE = "FN004";

    private final long token;

    public LeaseLostException(@Nullable String leaseName, long token) {
        super(
                "fenced: the lease " + (leaseName == null ? "" : "'" + leaseName + "' ") + "holding token " + token
                        + " was lost; its holder must stop writing and re-acquire it",
                SQLSTATE);
        this.token = token;
    }

    /** With {@code detail} saying what was refused and why, e.g. an action {@link Actions#once} did not run. */
    public LeaseLostException(@Nullable String leaseName, long token, String detail) {
        super(
                "fenced: the lease " + (leaseName == null ? "" : "'" + leaseName + "' ") + "holding token " + token
                        + " was lost; its holder must stop writing and re-acquire it: " + detail,
                SQLSTATE);
        this.token = token;
    }

    public long token() {
        return token;
    }
}
