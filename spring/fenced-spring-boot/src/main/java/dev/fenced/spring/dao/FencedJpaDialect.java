package dev.fenced.spring.dao;

import dev.fenced.internal.spring.dao.FencedExceptions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.ConnectionHandle;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;

/**
 * Decorates the JPA dialect an EntityManagerFactory and a JpaTransactionManager already have (Hibernate's,
 * or a user's): fenced's refusals are translated first, everything else is the dialect's. The dialect is where
 * JPA translation happens that no PersistenceExceptionTranslator bean sees: a flush at commit through the
 * JpaTransactionManager, and the EntityManagerFactory's own translation of a repository's exception. Hibernate's
 * dialect would otherwise call a stale write a generic JpaSystemException.
 */
public final class FencedJpaDialect implements JpaDialect {

    private final JpaDialect delegate;

    public FencedJpaDialect(JpaDialect delegate) {
        this.delegate = delegate;
    }

    /** The dialect this one decorates. */
    public JpaDialect delegate() {
        return delegate;
    }

    @Override
    public @Nullable DataAccessException translateExceptionIfPossible(RuntimeException ex) {
        DataAccessException fenced = FencedExceptions.translate(null, null, ex);
        return fenced != null ? fenced : delegate.translateExceptionIfPossible(ex);
    }

    @Override
    public Object beginTransaction(EntityManager entityManager, TransactionDefinition definition)
            throws PersistenceException, SQLException, TransactionException {
        return delegate.beginTransaction(entityManager, definition);
    }

    @Override
    public Object prepareTransaction(EntityManager entityManager, boolean readOnly, String name)
            throws PersistenceException {
        return delegate.prepareTransaction(entityManager, readOnly, name);
    }

    @Override
    public void cleanupTransaction(Object transactionData) {
        delegate.cleanupTransaction(transactionData);
    }

    @Override
    public ConnectionHandle getJdbcConnection(EntityManager entityManager, boolean readOnly)
            throws PersistenceException, SQLException {
        return delegate.getJdbcConnection(entityManager, readOnly);
    }

    @Override
    public void releaseJdbcConnection(ConnectionHandle conHandle, EntityManager entityManager)
            throws PersistenceException, SQLException {
        delegate.releaseJdbcConnection(conHandle, entityManager);
    }

    @Override
    public String toString() {
        return "FencedJpaDialect(" + delegate + ")";
    }
}
