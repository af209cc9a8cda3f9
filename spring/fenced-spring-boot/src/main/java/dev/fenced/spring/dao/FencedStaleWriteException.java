package dev.fenced.spring.dao;

import org.springframework.dao.OptimisticLockingFailureException;

/**
 * A stale write refused: a newer token already wrote the row, so this holder lost its lease somewhere and must
 * stop. An {@link OptimisticLockingFailureException}, as a version check would report it; the cause is fenced's
 * {@code StaleTokenException}.
 */
public class FencedStaleWriteException extends OptimisticLockingFailureException {

    private static final long serialVersionUID = 1L;

    public FencedStaleWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
