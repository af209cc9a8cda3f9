package dev.fenced.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import net.ttddyy.dsproxy.support.ProxyDataSourceBuilder;

/**
 * The one database every benchmark of a run talks to, and the pools in front of it. Started once per JVM:
 * by {@link BenchMain} before the rounds (JMH runs in-process there), or lazily by the first benchmark when
 * JMH is run on its own with forks. An embedded PostgreSQL unless {@code -Dbench.jdbcUrl} (or the runner's
 * {@code --jdbc-url}) names a server; either way the benchmarks get a fresh database of their own
 * ({@code fenced_bench_<random>}), dropped at the end.
 *
 * <p>Every path has its own HikariCP pool of {@link #POOL_SIZE} fixed connections, so no path borrows a
 * connection another one warmed.
 */
public final class BenchEnv {

    public static final String JDBC_URL_PROPERTY = "bench.jdbcUrl";
    public static final int POOL_SIZE = 4;
    /** Rows in each table; client thread {@code t} of {@code n} updates only its own slice, so rows never wait on each other. */
    public static final int ROWS = 10_000;
    /** The token every benchmark thread writes under (a constant: every row accepts it, since none has a newer one). */
    public static final long TOKEN = 1_000_000L;

    public static final String PROTECTED = "bench_fenced";
    public static final String PLAIN = "bench_plain";
    public static final String LEASE_TABLE = "bench_lease";
    public static final String FENCE_COLUMN = "last_token";

    /** What users write; fenced rewrites the first, passes the second through. */
    public static final String UPDATE_PROTECTED = "UPDATE " + PROTECTED + " SET amount = ? WHERE id = ?";
    /**
     * The background article's fencing UPDATE as a user writes it by hand: the reference fenced's guard is held to.
     * It skips a stale row (0 rows) where fenced fails the statement; on the bench's rows, which never go stale,
     * both do the same work.
     */
    public static final String UPDATE_ARTICLE =
            "UPDATE " + PROTECTED + " SET amount = ?, last_token = ? WHERE id = ? AND last_token <= ?";

    public static final String UPDATE_PLAIN = "UPDATE " + PLAIN + " SET amount = ? WHERE id = ?";
    public static final String SELECT_PROTECTED = "SELECT amount FROM " + PROTECTED + " WHERE id = ?";

    private static BenchEnv instance;
    private static String configuredUrl;

    private final EmbeddedPostgres embedded;
    private final String adminUrl;
    private final String database;
    private final String rawUrl;
    private final String fencedUrl;
    private final String handFencedUpdate;
    private final String serverDescription;
    private final HikariDataSource raw;
    private final HikariDataSource rawForProxy;
    private final HikariDataSource fenced;
    private final HikariDataSource p6spy;
    private final DataSource datasourceProxy;
    private final java.util.Deque<AutoCloseable> closeFirst = new java.util.ArrayDeque<>();

    /** Before the first {@link #get()}: the server to use instead of an embedded one (a plain jdbc:postgresql: URL). */
    public static synchronized void useServer(String jdbcUrl) {
        if (instance != null) {
            throw new IllegalStateException("the benchmark database is already up");
        }
        configuredUrl = jdbcUrl;
    }

    public static synchronized BenchEnv get() {
        if (instance == null) {
            try {
                instance = new BenchEnv();
            } catch (Exception e) {
                throw new IllegalStateException("cannot set up the benchmark database: " + e, e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(BenchEnv::shutdown, "bench-env-shutdown"));
        }
        return instance;
    }

    /** Closes the pools, drops the benchmark database and stops the embedded server (idempotent). */
    public static synchronized void shutdown() {
        BenchEnv env = instance;
        instance = null;
        if (env != null) {
            env.close();
        }
    }

    private BenchEnv() throws IOException, SQLException {
        String url = configuredUrl != null ? configuredUrl : System.getProperty(JDBC_URL_PROPERTY);
        if (url == null || url.isBlank()) {
            // room for WriteScaleCurve's 64 client threads on two pools besides the benchmarks' own
            embedded = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "300")
                    .start();
            adminUrl = "jdbc:postgresql://localhost:" + embedded.getPort() + "/postgres?user=postgres";
        } else {
            embedded = null;
            adminUrl = url.trim();
        }
        database = "fenced_bench_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        }
        rawUrl = withDatabase(adminUrl, database);
        fencedUrl = "jdbc:fenced:" + rawUrl.substring("jdbc:".length()) + (rawUrl.indexOf('?') < 0 ? '?' : '&')
                + "fenced.tables=" + PROTECTED;
        createSchema();
        serverDescription = describeServer();

        raw = pool("raw", rawUrl, null);
        rawForProxy = pool("raw-for-datasource-proxy", rawUrl, null);
        fenced = pool("fenced", fencedUrl, "dev.fenced.FencedDriver");
        // p6spy as its docs set it up, minus logging: only the spy module (no P6LogFactory, no outage detector).
        System.setProperty("p6spy.config.modulelist", "com.p6spy.engine.spy.P6SpyFactory");
        System.setProperty("p6spy.config.jmx", "false");
        p6spy = pool("p6spy", "jdbc:p6spy:" + rawUrl.substring("jdbc:".length()), "com.p6spy.engine.spy.P6SpyDriver");
        // datasource-proxy around its own pool, no listeners: the proxying alone.
        datasourceProxy =
                ProxyDataSourceBuilder.create(rawForProxy).name("bench").build();

        try (Connection c = fenced.getConnection()) {
            handFencedUpdate = c.nativeSQL(UPDATE_PROTECTED);
        }
        checkHandFencedLayout();
    }

    private void createSchema() throws SQLException {
        try (Connection c = DriverManager.getConnection(rawUrl);
                Statement s = c.createStatement()) {
            // Same shape for both tables except the fence column; fillfactor leaves room for HOT updates.
            s.execute("CREATE TABLE " + PROTECTED + " (id int PRIMARY KEY, amount bigint NOT NULL, " + FENCE_COLUMN
                    + " bigint) WITH (fillfactor = 70)");
            s.execute("CREATE TABLE " + PLAIN + " (id int PRIMARY KEY, amount bigint NOT NULL) WITH (fillfactor = 70)");
            s.execute("INSERT INTO " + PROTECTED + " SELECT g, 0, 0 FROM generate_series(1, " + ROWS + ") g");
            s.execute("INSERT INTO " + PLAIN + " SELECT g, 0 FROM generate_series(1, " + ROWS + ") g");
            s.execute("VACUUM ANALYZE " + PROTECTED);
            s.execute("VACUUM ANALYZE " + PLAIN);
        }
    }

    private String describeServer() throws SQLException {
        try (Connection c = DriverManager.getConnection(rawUrl);
                Statement s = c.createStatement()) {
            StringBuilder b = new StringBuilder(embedded != null ? "embedded PostgreSQL " : "PostgreSQL ");
            for (String setting : List.of("server_version", "fsync", "synchronous_commit", "shared_buffers")) {
                try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
                    rs.next();
                    b.append(setting.equals("server_version") ? "" : ", " + setting + "=")
                            .append(rs.getString(1));
                }
            }
            return b.toString();
        }
    }

    /**
     * Path (b) binds the rewritten UPDATE by hand with fixed indexes: amount at 1, the token at 2 and 3, the id at
     * 4. This checks once that those are exactly the places fenced itself binds, so (b) and (c) send the same.
     */
    private void checkHandFencedLayout() {
        FencingTargets targets = FencingTargets.of(
                List.of(new ProtectedTable(TableName.parse(PROTECTED), FENCE_COLUMN, FencingMode.ENFORCE)));
        RewritePlan plan =
                new SqlRewriter(targets, RelativeUpdatePolicy.WARN, Duration.ofSeconds(2)).plan(UPDATE_PROTECTED);
        boolean same = plan instanceof RewritePlan.Fenced fenced
                && fenced.sql().equals(handFencedUpdate)
                && Arrays.equals(fenced.tokenIndexes(), new int[] {2, 3})
                && Arrays.equals(fenced.delegateIndexes(1), new int[] {1})
                && Arrays.equals(fenced.delegateIndexes(2), new int[] {4});
        if (!same) {
            throw new IllegalStateException(
                    "the rewritten UPDATE no longer has the layout path (b) binds by hand; update"
                            + " UpdateBench.b_rawHandFenced: " + plan
                            + (plan instanceof RewritePlan.Fenced f
                                    ? " tokens at " + Arrays.toString(f.tokenIndexes())
                                    : ""));
        }
    }

    private static HikariDataSource pool(String name, String url, String driverClass) {
        return pool(name, url, driverClass, POOL_SIZE, new java.util.Properties());
    }

    /** A HikariCP pool of {@code size} fixed connections, {@code properties} handed to the driver. */
    static HikariDataSource pool(
            String name, String url, String driverClass, int size, java.util.Properties properties) {
        HikariConfig c = new HikariConfig();
        c.setDataSourceProperties(properties);
        c.setPoolName("bench-" + name);
        c.setJdbcUrl(url);
        if (driverClass != null) {
            c.setDriverClassName(driverClass);
        }
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        c.setConnectionTimeout(10_000);
        return new HikariDataSource(c);
    }

    /** Replaces the database of a {@code jdbc:postgresql://host:port/db?params} URL. */
    static String withDatabase(String url, String db) {
        String prefix = "jdbc:postgresql://";
        int slash = url.indexOf('/', prefix.length());
        if (!url.startsWith(prefix) || slash < 0) {
            throw new IllegalArgumentException(
                    "the server URL must look like jdbc:postgresql://host:port/db?user=...: " + url);
        }
        int q = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + db + (q < 0 ? "" : url.substring(q));
    }

    /** Runs {@code resource.close()} at shutdown, before the pools close (last registered first). */
    public synchronized void onClose(AutoCloseable resource) {
        closeFirst.push(resource);
    }

    private void close() {
        while (!closeFirst.isEmpty()) {
            try {
                closeFirst.pop().close();
            } catch (Exception e) {
                System.err.println("bench: " + e);
            }
        }
        for (HikariDataSource ds : new HikariDataSource[] {raw, rawForProxy, fenced, p6spy}) {
            ds.close();
        }
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("bench: could not drop database " + database + ": " + e.getMessage());
        }
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException e) {
                System.err.println("bench: could not stop the embedded PostgreSQL: " + e.getMessage());
            }
        }
    }

    /** The pool of path (a) and (b): plain pgjdbc. */
    public DataSource raw() {
        return raw;
    }

    /** The pool of paths (c) and (d): {@code jdbc:fenced:postgresql:} with {@code fenced.tables=bench_fenced}. */
    public DataSource fenced() {
        return fenced;
    }

    public DataSource p6spy() {
        return p6spy;
    }

    public DataSource datasourceProxy() {
        return datasourceProxy;
    }

    /** {@code nativeSQL(UPDATE_PROTECTED)} on a fenced connection: what fenced sends for it. */
    public String handFencedUpdate() {
        return handFencedUpdate;
    }

    /**
     * {@link #handFencedUpdate()} as fenced sent it before its guard was qualified: {@code row > token} where it
     * now calls {@code pg_catalog.int8gt(row, token)}, the function that operator calls. Paired with the current
     * form, it shows what the qualification costs on the server.
     */
    public String handFencedUpdateUnqualified() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("pg_catalog\\.int8gt\\(([^(),]+), ([^(),]+)\\)")
                .matcher(handFencedUpdate);
        String before = m.replaceAll("$1 > $2");
        if (before.equals(handFencedUpdate)) {
            throw new IllegalStateException("no pg_catalog.int8gt guard in " + handFencedUpdate);
        }
        return before;
    }

    public String serverDescription() {
        return serverDescription;
    }

    public String rawUrl() {
        return rawUrl;
    }

    /**
     * The server's postmaster process (from {@code postmaster.pid} in its data directory), when it runs on this
     * machine and that file can be read: the scale curves sum the CPU time of it and its children.
     */
    public java.util.OptionalLong postmasterPid() {
        try (Connection c = DriverManager.getConnection(rawUrl);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW data_directory")) {
            rs.next();
            java.nio.file.Path file = java.nio.file.Path.of(rs.getString(1), "postmaster.pid");
            return java.util.OptionalLong.of(
                    Long.parseLong(java.nio.file.Files.readAllLines(file).get(0).trim()));
        } catch (SQLException | IOException | RuntimeException e) {
            return java.util.OptionalLong.empty();
        }
    }

    public boolean isEmbedded() {
        return embedded != null;
    }
}
