package dev.fenced.internal.spring.datasource;

import dev.fenced.internal.jdbc.ConnectionFactory;
import dev.fenced.spring.config.FencedSettings;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import javax.sql.DataSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Fences the application's DataSource beans in place, with no URL change: each becomes a proxy of its own class
 * (a {@code HikariDataSource} stays a {@code HikariDataSource} for injection, metrics and health) whose
 * {@code getConnection} hands out the pool's connections wrapped by the driver's one connection path
 * ({@link ConnectionFactory#wrapping}). The pool keeps pooling raw connections; {@code unwrap} reaches it. A
 * DataSource whose URL is already {@code jdbc:fenced:} (or a {@code FencedDataSource}) is left alone: fenced
 * never wraps twice.
 */
public final class FencedDataSourcePostProcessor implements BeanPostProcessor, Ordered {

    private static final System.Logger LOG = System.getLogger("dev.fenced.spring");

    private final ObjectProvider<FencedSettings> settings;

    public FencedDataSourcePostProcessor(ObjectProvider<FencedSettings> settings) {
        this.settings = settings;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource pool) || bean instanceof FencedDataSourceProxy) {
            return bean;
        }
        FencedSettings s = settings.getObject();
        if (!s.config().springWrapDataSource() || alreadyFenced(pool)) {
            return bean;
        }
        String url = url(pool);
        if (url != null && !isPostgresql(url)) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "fenced: DataSource bean ''{0}'' is not PostgreSQL ({1}); left unfenced",
                    beanName,
                    url.substring(0, Math.min(url.length(), url.indexOf(':', 5) + 1)));
            return bean;
        }
        DataSource fenced;
        try {
            fenced = ConnectionFactory.wrapping(pool, s.config());
        } catch (dev.fenced.FencingException e) {
            // fenced.tables not set: start-up fails here rather than every write passing while the log says fenced
            throw new IllegalStateException(
                    "fenced: cannot fence DataSource bean '" + beanName + "': " + e.getMessage(), e);
        }
        ProxyFactory factory = new ProxyFactory(pool);
        factory.setProxyTargetClass(!Modifier.isFinal(pool.getClass().getModifiers()));
        factory.addInterface(DataSource.class);
        factory.addInterface(FencedDataSourceProxy.class);
        factory.addAdvice(new Redirect(fenced));
        LOG.log(
                System.Logger.Level.INFO,
                "fenced: DataSource bean ''{0}'' ({1}) fenced in place",
                beanName,
                pool.getClass().getName());
        return factory.getProxy(pool.getClass().getClassLoader());
    }

    /**
     * {@code jdbc:postgresql:}, also behind wrapping drivers ({@code jdbc:p6spy:postgresql:},
     * {@code jdbc:otel:postgresql:}, {@code jdbc:tc:postgresql:}, ...): their connections reach PostgreSQL and its
     * protected tables all the same, so leaving them unfenced would let writes through without a token.
     */
    static boolean isPostgresql(String url) {
        return POSTGRESQL_URL.matcher(url).lookingAt();
    }

    private static final java.util.regex.Pattern POSTGRESQL_URL = java.util.regex.Pattern.compile(
            "jdbc:([a-z0-9_.-]+:)*postgresql:", java.util.regex.Pattern.CASE_INSENSITIVE);

    /** A URL that already goes through the fenced driver: the pool's own {@code jdbcUrl} or {@code url}. */
    static boolean alreadyFenced(DataSource pool) {
        if (pool instanceof dev.fenced.FencedDataSource) {
            return true;
        }
        String url = url(pool);
        return url != null && url.startsWith("jdbc:fenced:");
    }

    /** The pool's own {@code jdbcUrl} or {@code url} property, or null when it has none we can read. */
    static @Nullable String url(DataSource pool) {
        BeanWrapper w = PropertyAccessorFactory.forBeanPropertyAccess(pool);
        for (String property : new String[] {"jdbcUrl", "url"}) {
            try {
                if (w.isReadableProperty(property) && w.getPropertyValue(property) instanceof String url) {
                    return url;
                }
            } catch (RuntimeException unreadable) {
                // a getter that throws before the pool is configured: no URL we can see
            }
        }
        return null;
    }

    /** Connections and unwrapping from the fenced view, everything else from the pool itself. */
    private static final class Redirect implements MethodInterceptor {
        private final DataSource fenced;

        Redirect(DataSource fenced) {
            this.fenced = fenced;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Method m = invocation.getMethod();
            Object[] a = invocation.getArguments();
            switch (m.getName()) {
                case "getConnection":
                    if (a.length == 0) {
                        return fenced.getConnection();
                    }
                    if (a.length == 2) {
                        return fenced.getConnection((String) a[0], (String) a[1]);
                    }
                    break;
                case "unwrap":
                    if (a.length == 1 && a[0] instanceof Class<?> iface) {
                        return fenced.unwrap(iface);
                    }
                    break;
                case "isWrapperFor":
                    if (a.length == 1 && a[0] instanceof Class<?> iface) {
                        return fenced.isWrapperFor(iface);
                    }
                    break;
                default:
                    break;
            }
            return invocation.proceed();
        }
    }

    /** Wrap after everything else has seen the pool as configured. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 10;
    }
}
