package dev.fenced.internal.spring.dao;

import dev.fenced.spring.dao.FencedJpaDialect;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaDialect;
import org.springframework.orm.jpa.JpaTransactionManager;

/**
 * Gives every JPA EntityManagerFactory and JpaTransactionManager fenced's translation, decorating the dialect it
 * has ({@link FencedJpaDialect}): JDBC translation does not reach JPA, whose exceptions go through the dialect
 * (Spring's HibernateJpaDialect) at commit and in the factory's own translator. After initialization, when the
 * factory has taken its vendor's dialect; the transaction manager copies the factory's in its own initialization.
 */
public final class JpaTranslationPostProcessor implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractEntityManagerFactoryBean factory && factory.getJpaDialect() != null) {
            factory.setJpaDialect(decorate(factory.getJpaDialect()));
        } else if (bean instanceof JpaTransactionManager tm) {
            tm.setJpaDialect(decorate(tm.getJpaDialect()));
        }
        return bean;
    }

    static JpaDialect decorate(JpaDialect existing) {
        return existing instanceof FencedJpaDialect ? existing : new FencedJpaDialect(existing);
    }
}
