package dev.fenced.internal.spring.datasource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.spring.config.FencedSettings;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Which DataSource beans the starter fences. A PostgreSQL DataSource reached through a wrapping JDBC driver
 * (p6spy, OpenTelemetry's, Testcontainers', AWS's) is still PostgreSQL with protected tables: leaving it unfenced
 * would let every write to them through without a token, silently.
 */
class FencedDataSourcePostProcessorTest {

    private static Object process(String url) {
        return process(url, Map.of("fenced.tables", "totals"));
    }

    private static Object process(String url, Map<String, Object> fencedKeys) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("test", fencedKeys));
        FencedSettings settings = FencedSettings.from(env);
        StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("fencedSettings", settings));
        return new FencedDataSourcePostProcessor(beans.getBeanProvider(FencedSettings.class))
                .postProcessAfterInitialization(new UrlDataSource(url), "dataSource");
    }

    @Test
    void postgresqlBehindAWrappingDriverIsFenced() {
        for (String url : new String[] {
            "jdbc:postgresql://db/app",
            "jdbc:p6spy:postgresql://db/app",
            "jdbc:otel:postgresql://db/app",
            "jdbc:tc:postgresql:16:///app",
            "jdbc:aws-wrapper:postgresql://db/app",
            "JDBC:PostgreSQL://db/app"
        }) {
            assertTrue(process(url) instanceof FencedDataSourceProxy, url + " must be fenced");
        }
    }

    @Test
    void anotherDatabaseIsLeftAlone() {
        for (String url : new String[] {
            "jdbc:h2:mem:x", "jdbc:mysql://db/app", "jdbc:p6spy:h2:mem:x", "jdbc:mysql://db/app?x=:postgresql:"
        }) {
            assertFalse(process(url) instanceof FencedDataSourceProxy, url + " is not PostgreSQL");
        }
    }

    @Test
    void aStarterThatProtectsNothingFailsStartUpNamingFencedTables() {
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> process("jdbc:postgresql://db/app", Map.of()));
        assertTrue(
                e.getMessage().contains("dataSource") && e.getMessage().contains("fenced.tables is not set"),
                e::getMessage);
        assertTrue(
                process("jdbc:postgresql://db/app", Map.of("fenced.mode", "off")) instanceof FencedDataSourceProxy,
                "fenced.mode=off: nothing protected on purpose");
    }

    /** A DataSource with a readable {@code url} property, as most pools and drivers' DataSources have. */
    public static class UrlDataSource implements DataSource {
        private String url;

        public UrlDataSource() {}

        UrlDataSource(String url) {
            this.url = url;
        }

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        @Override
        public Connection getConnection() throws SQLException {
            throw new SQLException("not used");
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLException("not used");
        }

        @Override
        public PrintWriter getLogWriter() {
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
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
