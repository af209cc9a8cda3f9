package dev.fenced.internal.spring.migration;

import dev.fenced.Fencing;
import dev.fenced.spring.config.FencedSettings;
import java.util.Set;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Runs Flyway and Liquibase migrations inside {@link Fencing#unfenced}: schema changes and seed data are an
 * administrator's writes, not a lease holder's, and in enforce mode a seed INSERT into a protected table would
 * otherwise be refused for want of a token. An explicit decision, logged at start-up and by every unfenced section;
 * {@code fenced.spring.unfencedMigrations=false} fences them like any other writer.
 *
 * <p>Boot-version neutral: it wraps the migration tools' own beans, not Boot's (moved) initializer classes. The
 * Flyway bean's {@code migrate()} runs unfenced whoever calls it (Boot's initializer, a custom
 * FlywayMigrationStrategy); Liquibase migrates in its bean's {@code afterPropertiesSet()}, which Spring calls on
 * what this post-processor returns before initialization.
 */
public final class UnfencedMigrationsPostProcessor implements BeanPostProcessor {

    private static final System.Logger LOG = System.getLogger("dev.fenced.spring");

    static final String FLYWAY = "org.flywaydb.core.Flyway";
    static final String LIQUIBASE = "liquibase.integration.spring.SpringLiquibase";

    private final ObjectProvider<FencedSettings> settings;

    public UnfencedMigrationsPostProcessor(ObjectProvider<FencedSettings> settings) {
        this.settings = settings;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (!is(bean, LIQUIBASE)) {
            return bean;
        }
        Object proxy = unfenced(bean, beanName, "Liquibase", Set.of("afterPropertiesSet"));
        if (proxy != bean && pgjdbcPresent()) {
            LiquibaseOnly.nativeSqlAsWritten(bean);
        }
        return proxy;
    }

    /** Liquibase's types, loaded only when a Liquibase bean exists. */
    private static final class LiquibaseOnly {
        static void nativeSqlAsWritten(Object bean) {
            liquibase.integration.spring.SpringLiquibase liquibase =
                    (liquibase.integration.spring.SpringLiquibase) bean;
            if (liquibase.getDataSource() != null) {
                liquibase.setDataSource(new NativeSqlAsWritten(liquibase.getDataSource()));
            }
        }
    }

    private static boolean pgjdbcPresent() {
        return org.springframework.util.ClassUtils.isPresent(
                "org.postgresql.PGConnection", UnfencedMigrationsPostProcessor.class.getClassLoader());
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        return is(bean, FLYWAY) ? unfenced(bean, beanName, "Flyway", Set.of("migrate", "baseline", "repair")) : bean;
    }

    private static boolean is(Object bean, String className) {
        for (Class<?> c = bean.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }

    private Object unfenced(Object bean, String beanName, String tool, Set<String> methods) {
        if (!settings.getObject().config().springUnfencedMigrations()) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "fenced: {0} migrations (bean ''{1}'') run fenced" + " (fenced.spring.unfencedMigrations=false)",
                    tool,
                    beanName);
            return bean;
        }
        LOG.log(
                System.Logger.Level.INFO,
                "fenced: {0} migrations (bean ''{1}'') run unfenced, as admin writes;"
                        + " fenced.spring.unfencedMigrations=false fences them",
                tool,
                beanName);
        ProxyFactory factory = new ProxyFactory(bean);
        factory.setProxyTargetClass(true);
        factory.addAdvice((MethodInterceptor) invocation -> {
            if (!methods.contains(invocation.getMethod().getName())) {
                return invocation.proceed();
            }
            return Fencing.unfenced(() -> {
                try {
                    return invocation.proceed();
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new java.lang.reflect.UndeclaredThrowableException(t);
                }
            });
        });
        return factory.getProxy(bean.getClass().getClassLoader());
    }
}
