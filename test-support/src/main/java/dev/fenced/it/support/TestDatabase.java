package dev.fenced.it.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * The PostgreSQL server the integration tests talk to: the one named by {@code FENCED_TEST_JDBC_URL}
 * (a plain {@code jdbc:postgresql:} URL with credentials, pointing at a database the user may create
 * databases from), or an embedded server started once per test JVM. Each test class takes a fresh
 * database of its own with {@link #create()}, so tests never see each other's tables or leases.
 */
public final class TestDatabase {

    public static final String ENV = "FENCED_TEST_JDBC_URL";

    private static String adminUrl;
    private static EmbeddedPostgres embedded;

    private final String name;
    private final String rawUrl;

    private TestDatabase(String name, String rawUrl) {
        this.name = name;
        this.rawUrl = rawUrl;
    }

    /** A new, empty database on the test server. */
    public static synchronized TestDatabase create() {
        String admin = adminUrl();
        String db = "fenced_it_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(admin);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a test database on " + admin, e);
        }
        return new TestDatabase(db, withDatabase(admin, db));
    }

    /** True when the tests run against an embedded server this JVM started. */
    public static boolean isEmbedded() {
        adminUrl();
        return embedded != null;
    }

    private static String adminUrl() {
        if (adminUrl == null) {
            String external = System.getenv(ENV);
            if (external != null && !external.isBlank()) {
                adminUrl = external.trim();
            } else {
                try {
                    embedded = EmbeddedPostgres.builder().start();
                } catch (IOException e) {
                    throw new IllegalStateException("cannot start embedded PostgreSQL", e);
                }
                adminUrl = "jdbc:postgresql://localhost:" + embedded.getPort() + "/postgres?user=postgres";
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        embedded.close();
                    } catch (IOException ignored) {
                        // the JVM is going away
                    }
                }));
            }
        }
        return adminUrl;
    }

    /** Replaces the database name of a {@code jdbc:postgresql://host:port/db?params} URL. */
    static String withDatabase(String url, String db) {
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        if (!url.startsWith("jdbc:postgresql://") || slash < 0) {
            throw new IllegalArgumentException(ENV + " must look like jdbc:postgresql://host:port/db?user=...: " + url);
        }
        int q = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + db + (q < 0 ? "" : url.substring(q));
    }

    public String name() {
        return name;
    }

    /** {@code jdbc:postgresql:} URL of this database. */
    public String rawUrl() {
        return rawUrl;
    }

    /**
     * {@code jdbc:fenced:postgresql:} URL of this database with extra {@code fenced.*} parameters, e.g.
     * {@code fencedUrl("fenced.tables=totals")}.
     */
    public String fencedUrl(String... fencedParameters) {
        StringBuilder b = new StringBuilder("jdbc:fenced:").append(rawUrl.substring("jdbc:".length()));
        char sep = rawUrl.indexOf('?') < 0 ? '?' : '&';
        for (String p : fencedParameters) {
            b.append(sep).append(p);
            sep = '&';
        }
        return b.toString();
    }

    /** A plain pgjdbc connection, for setting up and checking data behind fenced's back. */
    public Connection rawConnection() throws SQLException {
        return DriverManager.getConnection(rawUrl);
    }

    /**
     * What {@code query} answers on a plain connection, as text to compare: each row's columns joined by {@code ,},
     * each row ended by {@code ;}, rows apart by a space ({@code "1,a; 2,b;"}).
     */
    public String rows(String query) {
        try (Connection c = rawConnection()) {
            return rows(c, query);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@link #rows(String)} on a connection of the caller's. */
    public static String rows(Connection c, String query) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(query)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    b.append(rs.getString(i)).append(i == columns ? "; " : ",");
                }
            }
        }
        return b.toString().trim();
    }

    /** Runs statements on a plain connection. */
    public void execute(String... sql) {
        try (Connection c = rawConnection();
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Forgets every tombstone (fenced_tombstone), for fixtures that put back rows their tests deleted with a
     * newer token; a no-op before the driver made the table.
     */
    public void clearTombstones() {
        execute("DO $$ BEGIN IF to_regclass('fenced_tombstone') IS NOT NULL THEN DELETE FROM fenced_tombstone;"
                + " END IF; END $$");
    }

    /** The server's major version (15, 17, 18...), for forms an older PostgreSQL does not know. */
    public int serverMajorVersion() {
        return (int) queryLong("SELECT current_setting('server_version_num')::int / 10000");
    }

    /** A single long from a query on a plain connection. */
    public long queryLong(String sql) {
        try (Connection c = rawConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new IllegalStateException("no row: " + sql);
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
