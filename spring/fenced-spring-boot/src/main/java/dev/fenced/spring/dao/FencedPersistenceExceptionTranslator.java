package dev.fenced.spring.dao;

import dev.fenced.internal.spring.dao.FencedExceptions;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.support.PersistenceExceptionTranslator;

/**
 * For JPA and other {@code @Repository} translation: Spring asks every PersistenceExceptionTranslator bean in
 * order, and this one goes first, so a fenced refusal inside Hibernate's exception is named as fenced's, not as a
 * generic JpaSystemException.
 */
public final class FencedPersistenceExceptionTranslator implements PersistenceExceptionTranslator, Ordered {

    @Override
    public @Nullable DataAccessException translateExceptionIfPossible(RuntimeException ex) {
        return FencedExceptions.translate(null, null, ex);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
