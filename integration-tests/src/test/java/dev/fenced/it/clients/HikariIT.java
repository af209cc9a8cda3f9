package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedDataSource;
import dev.fenced.internal.jdbc.FencedConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * HikariCP {@value #HIKARI}, configured the three ways its users do, with plain JDBC on top: a
 * {@code jdbcUrl}, a {@code driverClassName} beside it, and {@code dataSourceClassName} with
 * {@code dataSource.*} properties (as in a hikari.properties file).
 */
class HikariIT {

    static final String HIKARI = "7.1.0";

    /** Plain JDBC writes over whatever pool {@link #pool()} builds. */
    abstract static class PooledJdbc extends ClientContract {

        HikariDataSource pool;

        abstract HikariConfig config();

        @Override
        protected void open() {
            HikariConfig config = config();
            config.setMaximumPoolSize(1); // one connection: every test below reuses it across tokens
            config.setPoolName(getClass().getSimpleName());
            pool = new HikariDataSource(config);
        }

        @Override
        protected void close() {
            pool.close();
        }

        private int write(String sql, Object... args) throws SQLException {
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                return ps.executeUpdate();
            }
        }

        @Override
        protected int update(int id, long amount) throws SQLException {
            return write("UPDATE totals SET amount = ? WHERE restaurant_id = ?", amount, id);
        }

        @Override
        protected void insert(int id, long amount) throws SQLException {
            write("INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)", id, amount);
        }

        @Override
        protected void upsert(int id, long amount) throws SQLException {
            write(
                    "INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)"
                            + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount",
                    id,
                    amount);
        }

        @Override
        protected int delete(int id) throws SQLException {
            return write("DELETE FROM totals WHERE restaurant_id = ?", id);
        }

        private int backendPid() throws SQLException {
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }

        @Test
        void theConnectionHandedOutIsFencedAndAStaleWriteDoesNotEvictIt() throws Throwable {
            try (Connection c = pool.getConnection()) {
                assertTrue(c.isWrapperFor(FencedConnection.class), "Hikari wraps a fenced connection");
            }
            int pid = backendPid();
            as(12, () -> update(1, 1));
            refusedAsStale(11, () -> update(1, 2));
            // FN001 is not a connection error: Hikari keeps the connection, the next holder uses it.
            assertEquals(pid, backendPid());
            assertEquals(1, pool.getHikariPoolMXBean().getTotalConnections());
            as(13, () -> assertEquals(1, update(1, 3)));
            assertEquals(13, Rows.token(db, 1));
        }
    }

    @Nested
    class JdbcUrl extends PooledJdbc {
        @Override
        HikariConfig config() {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.fencedUrl("fenced.tables=totals"));
            return config;
        }
    }

    @Nested
    class JdbcUrlAndDriverClassName extends PooledJdbc {
        @Override
        HikariConfig config() {
            HikariConfig config = new HikariConfig();
            config.setDriverClassName("dev.fenced.FencedDriver");
            config.setJdbcUrl(db.fencedUrl());
            config.addDataSourceProperty("fenced.tables", "totals"); // Properties given to connect
            return config;
        }
    }

    @Nested
    class DataSourceClassName extends PooledJdbc {
        @Override
        HikariConfig config() {
            // What a hikari.properties file says; HikariConfig(Properties) reads it the same way.
            Properties p = new Properties();
            p.setProperty("dataSourceClassName", FencedDataSource.class.getName());
            p.setProperty("dataSource.url", withoutUser(db.rawUrl()));
            p.setProperty("dataSource.user", userOf(db.rawUrl()));
            p.setProperty("dataSource.tables", "totals");
            return new HikariConfig(p);
        }

        @Test
        void thePoolBuiltTheFencedDataSource() throws SQLException {
            FencedDataSource built = pool.unwrap(FencedDataSource.class);
            assertEquals("totals", built.getTables());
        }
    }

    /** {@code jdbc:postgresql://h:p/db?user=u&x=y} without its user parameter. */
    static String withoutUser(String url) {
        int q = url.indexOf('?');
        if (q < 0) {
            return url;
        }
        StringBuilder kept = new StringBuilder();
        for (String p : url.substring(q + 1).split("&")) {
            if (!p.startsWith("user=")) {
                kept.append(kept.length() == 0 ? "?" : "&").append(p);
            }
        }
        return url.substring(0, q) + kept;
    }

    static String userOf(String url) {
        int q = url.indexOf('?');
        if (q >= 0) {
            for (String p : url.substring(q + 1).split("&")) {
                if (p.startsWith("user=")) {
                    return p.substring("user=".length());
                }
            }
        }
        return System.getProperty("user.name");
    }
}
