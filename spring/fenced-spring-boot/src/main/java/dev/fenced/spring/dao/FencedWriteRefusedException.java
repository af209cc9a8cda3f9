package dev.fenced.spring.dao;

import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * A write to a protected table refused for how it was made, not for a race: no token bound (enforce mode), or a
 * statement fenced cannot rewrite safely. The cause is fenced's {@code UnfencedWriteException} or
 * {@code UnsupportedStatementException}, naming the table and the reason.
 */
public class FencedWriteRefusedException extends InvalidDataAccessApiUsageException {

    private static final long serialVersionUID = 1L;

    public FencedWriteRefusedException(String message, Throwable cause) {
        super(message, cause);
    }
}
