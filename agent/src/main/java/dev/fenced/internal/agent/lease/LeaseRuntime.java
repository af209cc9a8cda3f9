package dev.fenced.internal.agent.lease;

import dev.fenced.FencedDriver;
import dev.fenced.FencingException;
import dev.fenced.LeaseManager;
import dev.fenced.internal.agent.bootstrap.LeaseHooks;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.lease.LeaseBoundCalls;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs lease-bound methods: one per class loader that holds fenced-driver, defined by the agent in a small
 * loader whose parent is that one, so it uses the application's own driver, LeaseManager and context.
 *
 * <p>Leases live where {@code fenced.lease.url} says, else on the database of the first {@code jdbc:fenced:}
 * connection the application opened (URL and connection properties). A lease-bound method called before
 * either exists fails: its body never runs unfenced.
 */
public final class LeaseRuntime implements LeaseHooks {

    private static final System.Logger LOG = System.getLogger("dev.fenced.agent");

    private final FencedConfig config;
    private final Map<String, LeaseMethod> methods;
    /** Re-entry, the busy policy and the leases held: the driver's, shared with the Spring starter. */
    private final LeaseBoundCalls calls = new LeaseBoundCalls(LOG);

    private volatile @Nullable LeaseManager manager;

    /** @param configFile the {@code =config=} file of the agent, or null */
    public LeaseRuntime(@Nullable String configFile) throws FencingException {
        this.config = ConfigLoader.forAgent(configFile == null ? null : Path.of(configFile));
        this.methods = config.leaseMethods();
    }

    @Override
    public @Nullable Object enter(String leaseName, String method) {
        LeaseMethod m = methods.get(leaseName);
        if (m == null) {
            throw new IllegalStateException("fenced: " + method + " is bound to lease '" + leaseName
                    + "', which this configuration does not define");
        }
        return calls.enter(leaseName, m.ttl(), m.onBusy(), method, () -> manager(method, leaseName));
    }

    private LeaseManager manager(String method, String leaseName) {
        LeaseManager m = manager;
        if (m != null) {
            return m;
        }
        synchronized (this) {
            m = manager;
            if (m == null) {
                String url = config.leaseUrl();
                Properties info = new Properties();
                if (url == null) {
                    Object[] first = ContextAccess.firstConnection();
                    if (first == null) {
                        throw new IllegalStateException("fenced: " + method + " needs lease '" + leaseName
                                + "' but the application has not opened a jdbc:fenced: connection yet and"
                                + " fenced.lease.url is not set");
                    }
                    url = (String) first[0];
                    info.putAll((Properties) first[1]);
                }
                LeaseManager created = LeaseManager.builder(new UrlDataSource(url, info))
                        .table(config.leaseTable())
                        .createTable(config.leaseCreateTable())
                        .tokenDomain(config.leaseTokenDomain())
                        .build();
                Runtime.getRuntime()
                        .addShutdownHook(FencedThreads.newThread("fenced-agent-leases-close", created::close));
                manager = created;
                m = created;
            }
            return m;
        }
    }

    /** Connections for the lease store, through the fenced driver or, for a plain URL, DriverManager. */
    static final class UrlDataSource implements DataSource {
        private final String url;
        private final Properties info;
        private final Driver fenced = new FencedDriver();

        UrlDataSource(String url, Properties info) {
            this.url = url;
            this.info = info;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (fenced.acceptsURL(url)) {
                return fenced.connect(url, info);
            }
            return DriverManager.getConnection(url, info);
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            Properties p = new Properties();
            p.putAll(info);
            p.setProperty("user", user);
            p.setProperty("password", password);
            return fenced.acceptsURL(url) ? fenced.connect(url, p) : DriverManager.getConnection(url, p);
        }

        @Override
        public @Nullable PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            if (iface.isInstance(this)) {
                return iface.cast(this);
            }
            throw new SQLException("not a wrapper for " + iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return iface.isInstance(this);
        }
    }
}
