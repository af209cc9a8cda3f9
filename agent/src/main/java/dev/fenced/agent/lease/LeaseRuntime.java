package dev.fenced.agent.lease;

import dev.fenced.FencedDriver;
import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.agent.bootstrap.LeaseHooks;
import dev.fenced.config.ConfigLoader;
import dev.fenced.config.FencedConfig;
import dev.fenced.config.LeaseMethod;
import dev.fenced.context.ContextAccess;
import java.io.PrintWriter;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;

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

    /** Returned for a call inside a lease this thread already holds: nothing to release afterwards. */
    private static final Object REENTERED = new Object();

    private final FencedConfig config;
    private final Map<String, LeaseMethod> methods;
    private final ThreadLocal<Map<String, Lease>> held = ThreadLocal.withInitial(HashMap::new);
    /** The leases this runtime holds now, by name, whichever thread took them. */
    private final Map<String, Lease> holding = new ConcurrentHashMap<>();
    private volatile LeaseManager manager;

    /** @param configFile the {@code =config=} file of the agent, or null */
    public LeaseRuntime(String configFile) throws FencingException {
        this.config = ConfigLoader.forAgent(configFile == null ? null : Path.of(configFile));
        this.methods = config.leaseMethods();
    }

    @Override
    public Object enter(String leaseName, String method) {
        LeaseMethod m = methods.get(leaseName);
        if (m == null) {
            throw new IllegalStateException("fenced: " + method + " is bound to lease '" + leaseName
                    + "', which this configuration does not define");
        }
        Map<String, Lease> mine = held.get();
        if (mine.containsKey(leaseName) || carriesHeld(leaseName)) {
            return REENTERED;
        }
        Lease lease;
        try {
            LeaseManager leases = manager(method, leaseName);
            switch (m.onBusy()) {
                case WAIT:
                    try {
                        lease = leases.acquire(leaseName, m.ttl(), m.ttl());
                    } catch (FencingException e) {
                        if (FencingException.LEASE_TIMEOUT.equals(e.getSQLState())) {
                            throw new IllegalStateException("fenced: lease '" + leaseName + "' stayed busy for "
                                    + m.ttl().toMillis() + " ms; " + method + " did not run: " + e.getMessage(), e);
                        }
                        throw e;
                    }
                    break;
                case FAIL: {
                    Optional<Lease> got = leases.tryAcquire(leaseName, m.ttl());
                    if (got.isEmpty()) {
                        throw new IllegalStateException("fenced: lease '" + leaseName + "' is held elsewhere; "
                                + method + " did not run");
                    }
                    lease = got.get();
                    break;
                }
                default: {
                    Optional<Lease> got = leases.tryAcquire(leaseName, m.ttl());
                    if (got.isEmpty()) {
                        LOG.log(Level.INFO, "fenced: lease ''{0}'' is held elsewhere; skipped {1}", leaseName, method);
                        return null;
                    }
                    lease = got.get();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("fenced: could not acquire lease '" + leaseName + "' for " + method
                    + ": " + e.getMessage(), e);
        }
        mine.put(leaseName, lease);
        holding.put(leaseName, lease);
        LOG.log(Level.DEBUG, "fenced: {0} runs under lease ''{1}'' (token {2})", method, leaseName, lease.token());
        return new Held(lease, mine, holding);
    }

    /**
     * True when the calling thread carries the live token of lease {@code leaseName} held by this runtime: a task
     * the lease-bound method handed to a pool calls it (or another method of that lease) again. Taking the lease
     * once more would find it busy with ourselves (skip would skip, wait would wait a whole ttl).
     */
    private boolean carriesHeld(String leaseName) {
        Lease lease = holding.get(leaseName);
        if (lease == null) {
            return false;
        }
        OptionalLong token = Fencing.currentToken();
        return token.isPresent() && token.getAsLong() == lease.token() && lease.isValid();
    }

    private LeaseManager manager(String method, String leaseName) {
        LeaseManager m = manager;
        if (m != null) {
            return m;
        }
        synchronized (this) {
            if (manager == null) {
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
                        .build();
                Runtime.getRuntime().addShutdownHook(new Thread(created::close, "fenced-agent-leases-close"));
                manager = created;
            }
            return manager;
        }
    }

    /** A lease this runtime acquired for one call; closing it releases the lease and restores the binding. */
    private static final class Held implements AutoCloseable {
        private final Lease lease;
        private final Map<String, Lease> owner;
        private final Map<String, Lease> holding;

        Held(Lease lease, Map<String, Lease> owner, Map<String, Lease> holding) {
            this.lease = lease;
            this.owner = owner;
            this.holding = holding;
        }

        @Override
        public void close() {
            owner.remove(lease.name());
            holding.remove(lease.name(), lease);
            lease.close();
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
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

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
