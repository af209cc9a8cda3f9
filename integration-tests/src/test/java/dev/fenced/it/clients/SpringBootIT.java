package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.StaleTokenException;
import dev.fenced.internal.jdbc.FencedConnection;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring Boot 3.5.7 application, started in-process, whose data source is fenced by configuration
 * alone: {@code spring.datasource.url} with {@code jdbc:fenced:postgresql:}, the driver class (Boot
 * cannot infer one from an unknown URL prefix) and the protected tables. Its auto-configured
 * JdbcTemplate, NamedParameterJdbcTemplate and {@code @Transactional} service are used as they are.
 */
class SpringBootIT extends ClientContract {

    /** The application: nothing fenced-specific but the translator bean docs/clients.md recommends. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        SQLExceptionTranslator fencedExceptionTranslator() {
            return new FencedExceptionTranslator();
        }

        @Bean
        TotalsService totalsService(JdbcTemplate jdbc) {
            return new TotalsService(jdbc);
        }
    }

    /** An ordinary transactional service. */
    static class TotalsService {
        private final JdbcTemplate jdbc;

        TotalsService(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public void publish(Map<Integer, Long> amounts) {
            amounts.forEach(
                    (id, amount) -> jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", amount, id));
        }
    }

    ConfigurableApplicationContext app;
    JdbcTemplate jdbc;
    NamedParameterJdbcTemplate named;

    /**
     * Flyway's auto-configuration is off: Boot 3.5.7 is built for Flyway 11 and fails on the 13.12.2 the
     * Flyway test uses (NoSuchMethodError, nothing to do with fenced); FlywayIT covers migrations.
     */
    static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "spring.flyway.enabled=false", "spring.sql.init.mode=never")
                .properties(properties)
                .run();
    }

    @Override
    protected void open() {
        app = start(
                "spring.datasource.url=" + db.fencedUrl(),
                "spring.datasource.driver-class-name=dev.fenced.FencedDriver",
                "spring.datasource.hikari.data-source-properties.fenced.tables=totals");
        jdbc = app.getBean(JdbcTemplate.class);
        named = app.getBean(NamedParameterJdbcTemplate.class);
    }

    @Override
    protected void close() {
        app.close();
    }

    @Override
    protected int update(int id, long amount) {
        return jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", amount, id);
    }

    @Override
    protected void insert(int id, long amount) {
        jdbc.update("INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)", id, amount);
    }

    @Override
    protected void upsert(int id, long amount) {
        named.update(
                "INSERT INTO totals (restaurant_id, amount) VALUES (:id, :amount)"
                        + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount",
                Map.of("id", id, "amount", amount));
    }

    @Override
    protected int delete(int id) {
        return jdbc.update("DELETE FROM totals WHERE restaurant_id = ?", id);
    }

    @Test
    void theAutoConfiguredPoolHandsOutFencedConnections() throws Exception {
        DataSource ds = app.getBean(DataSource.class);
        assertInstanceOf(HikariDataSource.class, ds);
        try (Connection c = ds.getConnection()) {
            assertTrue(c.isWrapperFor(FencedConnection.class));
            assertTrue(c.nativeSQL("UPDATE totals SET amount = ? WHERE restaurant_id = ?")
                    .contains("fenced-stale:"));
        }
    }

    @Test
    void theAutoConfiguredJdbcTemplateUsesTheTranslatorBean() throws Throwable {
        as(12, () -> update(1, 1));
        OptimisticLockingFailureException e =
                assertThrows(OptimisticLockingFailureException.class, () -> as(11, () -> update(1, 2)));
        assertInstanceOf(StaleTokenException.class, e.getCause());
    }

    @Test
    void aTransactionalServiceMethodThatMeetsAStaleRowRollsBackWhole() {
        TotalsService service = app.getBean(TotalsService.class);
        // Token 8 may write rows 1 and 2 (token 5) but not row 3 (token 9).
        refusedAsStale(8, () -> service.publish(new java.util.TreeMap<>(Map.of(1, 111L, 2, 222L, 3, 333L))));
        assertThrows(
                OptimisticLockingFailureException.class,
                () -> as(8, () -> service.publish(new java.util.TreeMap<>(Map.of(1, 111L, 3, 333L)))));
        assertEquals("1:10:5,2:20:5,3:30:9", Rows.totals(db));
    }

    @Test
    void aTransactionalServiceMethodOfTheCurrentHolderCommits() throws Throwable {
        as(9, () -> app.getBean(TotalsService.class).publish(Map.of(1, 111L, 3, 333L)));
        assertEquals("1:111:9,2:20:5,3:333:9", Rows.totals(db));
    }

    @Test
    void theProtectedTablesMayAlsoComeInTheUrl() throws Throwable {
        try (ConfigurableApplicationContext other = start(
                "spring.datasource.url=" + db.fencedUrl("fenced.tables=totals"),
                "spring.datasource.driver-class-name=dev.fenced.FencedDriver")) {
            JdbcTemplate t = other.getBean(JdbcTemplate.class);
            as(9, () -> t.update("UPDATE totals SET amount = 1 WHERE restaurant_id = 1"));
            assertEquals(9, Rows.token(db, 1));
            refusedAsStale(8, () -> t.update("UPDATE totals SET amount = 2 WHERE restaurant_id = 1"));
        }
    }

    @Test
    void theUrlAloneIsNotEnoughForBootItNeedsTheDriverClassName() {
        // Boot picks a driver class from the URL prefix and knows no jdbc:fenced: (DatabaseDriver.fromJdbcUrl).
        Exception e = assertThrows(
                Exception.class,
                () -> start("spring.datasource.url=" + db.fencedUrl("fenced.tables=totals"))
                        .close());
        assertTrue(Rows.chain(e).contains("Failed to determine a suitable driver class"), Rows.chain(e));
    }
}
