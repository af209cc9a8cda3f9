package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedDataSource;
import dev.fenced.internal.jdbc.FencedConnection;
import dev.fenced.it.support.TestDatabase;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/** The wrapper never hands out the raw connection (OTel #10550: Spring closed a pooled connection that way). */
@Tag("server-sensitive")
class IdentityIT {

    static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute("CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)");
    }

    @Test
    void everyPathBackToTheConnectionLeadsToTheWrapper() throws Exception {
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"))) {
            assertInstanceOf(FencedConnection.class, c);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1")) {
                assertSame(c, s.getConnection());
                assertSame(s, rs.getStatement());
                assertTrue(s.execute("SELECT 2"));
                assertSame(s, s.getResultSet().getStatement());
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT ?")) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    assertSame(ps, rs.getStatement());
                }
                assertSame(c, ps.getConnection());
            }
            try (CallableStatement cs = c.prepareCall("{? = call abs(?)}")) {
                cs.registerOutParameter(1, java.sql.Types.INTEGER);
                cs.setInt(2, -5);
                cs.execute();
                assertEquals(5, cs.getInt(1));
                assertSame(c, cs.getConnection());
            }
            assertSame(c, c.getMetaData().getConnection());
            try (ResultSet tables = c.getMetaData().getTables(null, null, "totals", null)) {
                assertTrue(tables.next());
                assertNull(tables.getStatement(), "metadata result sets report no statement rather than a raw one");
            }
        }
    }

    @Test
    @SuppressWarnings("IsInstanceIncompatibleType") // the point: the unwrapped pgjdbc connection is not ours
    void unwrapReachesPgjdbcAndOurOwnTypes() throws Exception {
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"))) {
            assertTrue(c.isWrapperFor(PGConnection.class));
            PGConnection pg = c.unwrap(PGConnection.class);
            assertFalse(FencedConnection.class.isInstance(pg));
            assertTrue(pg.getBackendPID() > 0);
            assertSame(c, c.unwrap(FencedConnection.class));
            try (Statement s = c.createStatement()) {
                assertSame(s, s.unwrap(Statement.class));
                assertTrue(s.isWrapperFor(org.postgresql.PGStatement.class));
            }
        }
    }

    @Test
    void hikariByJdbcUrlAndByDataSourceClassName() throws Exception {
        HikariConfig byUrl = new HikariConfig();
        byUrl.setJdbcUrl(db.fencedUrl("fenced.tables=totals"));
        byUrl.setDriverClassName("dev.fenced.FencedDriver");
        HikariConfig byClass = new HikariConfig();
        byClass.setDataSourceClassName(FencedDataSource.class.getName());
        byClass.addDataSourceProperty("url", db.rawUrl());
        byClass.addDataSourceProperty("tables", "totals");
        for (HikariConfig config : new HikariConfig[] {byUrl, byClass}) {
            config.setMaximumPoolSize(2);
            try (HikariDataSource pool = new HikariDataSource(config);
                    Connection c = pool.getConnection()) {
                assertTrue(c.isWrapperFor(FencedConnection.class), config.getPoolName());
                try (Statement s = c.createStatement()) {
                    // the pool's own proxy wraps ours; the statement's connection is the pool's proxy
                    assertSame(c, s.getConnection());
                }
                assertTrue(c.nativeSQL("UPDATE totals SET amount = 1").contains("fenced-stale:"));
            }
        }
    }
}
