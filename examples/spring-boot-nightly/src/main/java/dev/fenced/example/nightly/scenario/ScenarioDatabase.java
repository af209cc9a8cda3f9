package dev.fenced.example.nightly.scenario;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL the two instances share: embedded (zonky, started and stopped here), or a server named by a
 * {@code jdbc:postgresql:} URL, where the scenario makes a database of its own and drops it afterwards. Holds the
 * scenario's own reads and writes: the schema, the orders, and the checks at the end.
 */
final class ScenarioDatabase implements AutoCloseable {

    private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/?]+)(?::(\\d+))?/([^?]*)(\\?.*)?");

    private final EmbeddedPostgres embedded;
    private final String adminUrl;
    private final String host;
    private final int port;
    private final String database;
    private final String query;

    private ScenarioDatabase(EmbeddedPostgres embedded, String adminUrl) throws SQLException {
        this.embedded = embedded;
        this.adminUrl = adminUrl;
        Matcher m = URL.matcher(adminUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host[:port]/database URL: " + adminUrl);
        }
        this.host = m.group(1);
        this.port = m.group(2) == null ? 5432 : Integer.parseInt(m.group(2));
        this.query = m.group(4) == null ? "" : m.group(4);
        this.database = "fenced_example_nightly_" + ProcessHandle.current().pid();
        admin("DROP DATABASE IF EXISTS " + database, "CREATE DATABASE " + database);
    }

    /** The embedded server if {@code jdbcUrl} is null, else that server. */
    static ScenarioDatabase start(String jdbcUrl) throws IOException, SQLException {
        if (jdbcUrl != null) {
            return new ScenarioDatabase(null, jdbcUrl);
        }
        EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
        return new ScenarioDatabase(pg, "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres");
    }

    String description() {
        return embedded != null ? "embedded PostgreSQL on port " + port : "PostgreSQL at " + host + ":" + port;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** The scenario's database, reached through {@code host:port} (an instance's link). */
    String url(String viaHost, int viaPort) {
        return "jdbc:postgresql://" + viaHost + ":" + viaPort + "/" + database + query;
    }

    /** The service's schema.sql, then {@code restaurants} restaurants with {@code ordersEach} orders each. */
    void create(int restaurants, int ordersEach, Random random) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(schemaSql());
            s.execute("INSERT INTO totals (restaurant_id) SELECT generate_series(1, " + restaurants + ")");
        }
        for (int i = 0; i < ordersEach; i++) {
            addOrders(restaurants, restaurants, random);
        }
    }

    /** {@code count} new orders, each for a random restaurant. */
    void addOrders(int count, int restaurants, Random random) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO orders (restaurant_id, amount) VALUES (?, ?)")) {
            for (int i = 0; i < count; i++) {
                ps.setInt(1, 1 + random.nextInt(restaurants));
                ps.setLong(2, 500 + random.nextInt(9500)); // cents
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    long orders() throws SQLException {
        return queryLong("SELECT count(*) FROM orders");
    }

    /** The lease named {@code name} as the lease table holds it now: {token, milliseconds since its grant}. */
    long[] lease(String name) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT token, (extract(epoch FROM clock_timestamp() - granted_at) * 1000)::bigint FROM fenced_lease WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no lease named " + name + " in fenced_lease");
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /** The first run recorded in nightly_runs, or null while no instance has finished the night. */
    Night night() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT instance, token, restaurants, orders FROM nightly_runs ORDER BY run_id LIMIT 1")) {
            return rs.next() ? new Night(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getLong(4)) : null;
        }
    }

    /** Totals that are not the sum of their restaurant's orders. */
    long wrongTotals() throws SQLException {
        return queryLong("""
                SELECT count(*) FROM totals t
                 WHERE t.amount <> (SELECT coalesce(sum(o.amount), 0) FROM orders o WHERE o.restaurant_id = t.restaurant_id)""");
    }

    /** Totals whose last write carried another token than {@code token}. */
    long totalsNotWrittenWith(long token) throws SQLException {
        return queryLong("SELECT count(*) FROM totals WHERE last_token IS DISTINCT FROM " + token);
    }

    /** Runs recorded in nightly_runs: one per night when the lock did its job. */
    long runs() throws SQLException {
        return queryLong("SELECT count(*) FROM nightly_runs");
    }

    long totals() throws SQLException {
        return queryLong("SELECT count(*) FROM totals");
    }

    private long queryLong(String sql) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url(host, port));
    }

    private void admin(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static String schemaSql() {
        try (InputStream in = ScenarioDatabase.class.getClassLoader().getResourceAsStream("schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("schema.sql is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
            return;
        }
        try {
            admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("could not drop " + database + ": " + e.getMessage());
        }
    }
}
