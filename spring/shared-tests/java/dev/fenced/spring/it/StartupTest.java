package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.TestDatabase;
import dev.fenced.internal.spring.datasource.FencedDataSourceProxy;
import dev.fenced.spring.it.app.TestApp;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.JdbcTemplate;

/** Start-up: bad fenced keys fail it with fenced's own message; a fenced URL is used as it is, never wrapped twice. */
class StartupTest {

    @Test
    void anUnknownKeyFailsStartUpNamingIt() {
        Throwable e = assertThrows(Throwable.class, () -> start("spring.datasource.url=" + TestDatabase.create().rawUrl(),
                "fenced.tabels=totals").close());
        String message = messages(e);
        assertTrue(message.contains("unknown key 'fenced.tabels' in the Spring environment (did you mean fenced.tables?)"),
                message);
    }

    @Test
    void aBadValueFailsStartUpNamingTheKey() {
        Throwable e = assertThrows(Throwable.class, () -> start("spring.datasource.url=" + TestDatabase.create().rawUrl(),
                "fenced.tables=totals", "fenced.lease.listed.ttl=soon").close());
        String message = messages(e);
        assertTrue(message.contains("fenced.lease.listed.ttl in the Spring environment: expected a positive duration"),
                message);
    }

    @Test
    void migrationsRunFencedWhenTheyAreToldTo() {
        // the migrations' token-less INSERT into the protected table is then refused like any other writer's
        Throwable e = assertThrows(Throwable.class, () -> start("spring.datasource.url=" + TestDatabase.create().rawUrl(),
                "fenced.tables=totals", "fenced.missingTables=warn", "fenced.spring.unfencedMigrations=false").close());
        String message = messages(e);
        assertTrue(message.contains("V1__totals.sql"), message);
        assertTrue(message.contains("write to protected table totals refused: no fencing token is bound"), message);
    }

    @Test
    void aFencedUrlIsUsedAsItIsAndNotWrappedAgain() {
        String url = "jdbc:fenced:" + TestDatabase.create().rawUrl().substring("jdbc:".length());
        url += (url.contains("?") ? "&" : "?") + "fenced.tables=totals&fenced.missingTables=warn";
        try (ConfigurableApplicationContext context = start("spring.datasource.url=" + url,
                "spring.datasource.driver-class-name=dev.fenced.FencedDriver")) {
            DataSource ds = context.getBean(DataSource.class);
            assertFalse(ds instanceof FencedDataSourceProxy, "already fenced by its URL");
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            InvalidDataAccessApiUsageException refused = assertThrows(InvalidDataAccessApiUsageException.class,
                    () -> jdbc.update("UPDATE totals SET amount = 5 WHERE restaurant_id = 2"));
            assertInstanceOf(dev.fenced.UnfencedWriteException.class, refused.getCause());
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(TestApp.class).web(WebApplicationType.NONE)
                .properties("spring.liquibase.change-log=classpath:db/changelog/ledger.sql",
                        "spring.flyway.baseline-on-migrate=true", "spring.flyway.baseline-version=0")
                .properties(properties).run();
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append('\n');
        }
        return b.toString();
    }
}
