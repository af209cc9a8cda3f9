package dev.fenced;

import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.jdbc.ConnectionFactory;
import dev.fenced.internal.jdbc.Runtimes;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DataSource} of fenced connections, for pools configured by class name:
 *
 * <pre>{@code
 * dataSourceClassName=dev.fenced.FencedDataSource
 * dataSource.url=jdbc:fenced:postgresql://db/app
 * dataSource.user=app
 * dataSource.tables=totals,sales.orders
 * }</pre>
 *
 * The URL may also be a plain {@code jdbc:postgresql:} one; it is fenced all the same. Any
 * {@code fenced.*} key can go in the URL; the common ones have setters.
 */
public class FencedDataSource implements DataSource {

    /**
     * Fences an existing DataSource (a connection pool) in place, with no URL change: its connections are
     * wrapped as they are handed out, the pool keeps pooling the raw ones, and {@code unwrap} still reaches the
     * pool ({@code unwrap(HikariDataSource.class)}). {@code fencedKeys} holds {@code fenced.*} keys; the
     * system properties, environment and {@code fenced.properties} apply below them as for the driver.
     *
     * @throws FencingException for bad configuration, naming the key, before any connection is opened
     */
    public static DataSource wrap(DataSource pool, @Nullable Properties fencedKeys) throws FencingException {
        java.util.Objects.requireNonNull(pool, "pool");
        Properties p = fencedKeys == null ? new Properties() : fencedKeys;
        for (String name : p.stringPropertyNames()) {
            if (!name.startsWith(FencedProperty.PREFIX)) {
                throw new FencingException(
                        "fenced: FencedDataSource.wrap takes fenced.* keys only, got '" + name + "'",
                        FencingException.CONFIGURATION);
            }
        }
        return ConnectionFactory.wrapping(
                pool,
                ConfigLoader.forApplication(
                        "the properties given to FencedDataSource.wrap", ConfigLoader.fencedEntries(p)));
    }

    /** The runtimes of this DataSource's connections (one per user and settings): they go with it. */
    private final Runtimes runtimes = Runtimes.ofDataSource();

    private volatile @Nullable String url;
    private final Properties properties = new Properties();
    private volatile int loginTimeout;
    private volatile @Nullable PrintWriter logWriter;

    public FencedDataSource() {
        // bean: configured through setters
    }

    public FencedDataSource(String url) {
        // not through the overridable setter: a subclass is not built yet
        this.url = fencedUrl(java.util.Objects.requireNonNull(url, "fenced: FencedDataSource needs a URL"));
    }

    public @Nullable String getUrl() {
        return url;
    }

    /** {@code jdbc:fenced:postgresql:...}; a {@code jdbc:postgresql:} URL is taken as its fenced form. */
    public void setUrl(@Nullable String url) {
        this.url = url == null ? null : fencedUrl(url);
    }

    private static String fencedUrl(String url) {
        String fenced = url.startsWith("jdbc:postgresql:") ? "jdbc:fenced:" + url.substring("jdbc:".length()) : url;
        if (!ConnectionFactory.accepts(fenced)) {
            throw new IllegalArgumentException(
                    "fenced: FencedDataSource needs a jdbc:fenced:postgresql: URL, got " + fenced);
        }
        return fenced;
    }

    public void setUser(@Nullable String user) {
        set("user", user);
    }

    public @Nullable String getUser() {
        return properties.getProperty("user");
    }

    public void setPassword(@Nullable String password) {
        set("password", password);
    }

    /** {@code fenced.tables}: the protected tables, comma separated. */
    public void setTables(@Nullable String tables) {
        set(FencedProperty.TABLES.key(), tables);
    }

    public @Nullable String getTables() {
        return properties.getProperty(FencedProperty.TABLES.key());
    }

    /** {@code fenced.mode}: enforce, observe or off. */
    public void setMode(@Nullable String mode) {
        set(FencedProperty.MODE.key(), mode);
    }

    /** {@code fenced.column}: the fence column. */
    public void setColumn(@Nullable String column) {
        set(FencedProperty.COLUMN.key(), column);
    }

    /** Any connection property, pgjdbc's or a {@code fenced.*} key. */
    public void setProperty(String key, @Nullable String value) {
        set(key, value);
    }

    private void set(String key, @Nullable String value) {
        if (value == null) {
            properties.remove(key);
        } else {
            properties.setProperty(key, value);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return open((Properties) properties.clone());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        Properties p = (Properties) properties.clone();
        if (username != null) {
            p.setProperty("user", username);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        return open(p);
    }

    private Connection open(Properties p) throws SQLException {
        if (url == null) {
            throw new FencingException("fenced: FencedDataSource has no url", FencingException.CONFIGURATION);
        }
        if (loginTimeout > 0 && !p.containsKey("loginTimeout")) {
            p.setProperty("loginTimeout", Integer.toString(loginTimeout));
        }
        return ConnectionFactory.open(url, p, runtimes);
    }

    Runtimes runtimes() {
        return runtimes;
    }

    @Override
    public @Nullable PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(@Nullable PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return Logger.getLogger("dev.fenced");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("fenced: " + getClass().getName() + " does not wrap " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
