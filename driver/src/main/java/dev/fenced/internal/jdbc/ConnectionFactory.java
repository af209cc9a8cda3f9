package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.metrics.MetricsPublisher;
import dev.fenced.internal.observe.InventoryBean;
import dev.fenced.internal.pg.PgStates;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/** Opens a fenced connection: configuration, delegate driver, catalog check, wrapper. */
public final class ConnectionFactory {

    private ConnectionFactory() {}

    /** For a URL {@link #accepts}, from the driver; throws with a clear message for bad configuration. */
    public static Connection open(String url, Properties info) throws SQLException {
        return open(url, info, Runtimes.driver());
    }

    /** For a URL {@link #accepts}, the runtime kept by {@code runtimes} (a DataSource's own, or the driver's). */
    public static Connection open(String url, Properties info, Runtimes runtimes) throws SQLException {
        FencedUrl parsed = parse(url);
        FencedConfig config = ConfigLoader.forDriver(parsed.fencedParameters(), info);
        config.requireProtectedTables(); // before any connection is opened
        publish(config);
        Properties delegateInfo = new Properties();
        if (info != null) {
            for (String name : info.stringPropertyNames()) {
                if (!name.startsWith(FencedProperty.PREFIX)) {
                    delegateInfo.setProperty(name, info.getProperty(name));
                }
            }
        }
        Driver driver = DelegateDrivers.find(parsed.delegateUrl());
        Connection raw = driver.connect(parsed.delegateUrl(), delegateInfo);
        if (raw == null) {
            throw new SQLException(
                    "fenced: driver " + driver.getClass().getName() + " declined " + Secrets.mask(parsed.delegateUrl()),
                    PgStates.UNABLE_TO_CONNECT);
        }
        Properties listenerInfo = new Properties();
        listenerInfo.putAll(delegateInfo);
        listenerInfo.putIfAbsent("ApplicationName", "fenced-ddl-listener");
        Connection connection = wrap(
                raw,
                config,
                parsed.databaseKey(delegateInfo.getProperty("user")),
                runtimes,
                () -> driver.connect(parsed.delegateUrl(), listenerInfo));
        ContextAccess.recordConnection(url, info); // the agent's default lease store
        return connection;
    }

    /**
     * Fences a connection opened elsewhere (a pool's): the one path every fenced connection takes, whether
     * the driver opened it from a URL or {@link WrappingDataSource} borrowed it. {@code databaseKey} names the
     * database and user, for the catalog knowledge connections to it share; {@code runtimes} keeps that knowledge;
     * {@code listener} opens the connection a new runtime listens for DDL on (null for a pool's: see
     * {@link FencedRuntime#listenForDdl}). Closes {@code raw} on failure.
     */
    static Connection wrap(
            Connection raw,
            FencedConfig config,
            String databaseKey,
            Runtimes runtimes,
            DdlListener.@Nullable Opener listener)
            throws SQLException {
        try {
            FencedRuntime runtime = runtimes.forDatabase(databaseKey, config, raw, listener);
            return new FencedConnection(raw, runtime);
        } catch (SQLException | RuntimeException e) {
            try {
                raw.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static FencedUrl parse(String url) throws dev.fenced.FencingException {
        FencedUrl parsed = FencedUrl.parse(url);
        if (!parsed.repeated().isEmpty()) {
            throw new dev.fenced.FencingException(
                    "fenced: bad configuration: " + String.join(", ", parsed.repeated())
                            + " given twice in the JDBC URL; give each key once (fenced.tables takes a comma-separated list)",
                    dev.fenced.FencingException.CONFIGURATION);
        }
        return parsed;
    }

    /** The {@code fenced.*} parameters of a fenced URL (for tools that read the configuration as the driver does). */
    public static java.util.Map<String, String> fencedParameters(String url) throws dev.fenced.FencingException {
        return parse(url).fencedParameters();
    }

    /** The URL with its passwords and other secrets masked, for messages. */
    public static @Nullable String masked(@Nullable String url) {
        return Secrets.mask(url);
    }

    /**
     * A DataSource whose connections are {@code pool}'s, fenced under {@code config}; it unwraps to the pool.
     * Publishes the metrics as the driver's first connect does.
     *
     * @throws dev.fenced.FencingException when {@code config} protects nothing (refused here, at start-up, not at
     *     the first connection)
     */
    public static javax.sql.DataSource wrapping(javax.sql.DataSource pool, FencedConfig config)
            throws dev.fenced.FencingException {
        config.requireProtectedTables();
        publish(config);
        return new WrappingDataSource(pool, config);
    }

    /** The runtimes of a pool fenced in place ({@link #wrapping}), or of whatever unwraps to one; else null. */
    public static @Nullable Runtimes runtimesOf(javax.sql.DataSource dataSource) throws SQLException {
        return dataSource.isWrapperFor(WrappingDataSource.class)
                ? dataSource.unwrap(WrappingDataSource.class).runtimes()
                : null;
    }

    public static boolean accepts(String url) {
        return FencedUrl.accepts(url);
    }

    /** The pgjdbc URL a fenced URL stands for. */
    public static String delegateUrl(String url) {
        return FencedUrl.parse(url).delegateUrl();
    }

    /** Counters and the writer inventory go out over JMX (when configured) and Micrometer, once per class loader. */
    private static void publish(FencedConfig config) {
        MetricsPublisher.publish(config.metricsJmx());
        if (config.metricsJmx()) {
            InventoryBean.publish();
        }
    }
}
