package dev.fenced.internal.spring.dao;

import dev.fenced.spring.dao.FencedSQLExceptionTranslator;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.support.JdbcAccessor;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Gives every JdbcTemplate (and so NamedParameterJdbcTemplate and JdbcClient built on it) and JdbcTransactionManager
 * fenced's translation, decorating whatever translator it was given: a user's own is kept, behind fenced's.
 */
public final class JdbcTranslationPostProcessor implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof JdbcAccessor accessor) {
            accessor.setExceptionTranslator(decorate(accessor.getExceptionTranslator()));
        } else if (bean instanceof JdbcTransactionManager tm) {
            tm.setExceptionTranslator(decorate(tm.getExceptionTranslator()));
        }
        return bean;
    }

    static SQLExceptionTranslator decorate(SQLExceptionTranslator existing) {
        return existing instanceof FencedSQLExceptionTranslator ? existing : new FencedSQLExceptionTranslator(existing);
    }
}
