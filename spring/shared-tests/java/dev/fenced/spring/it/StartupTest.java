package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.TestDatabase;
import dev.fenced.internal.spring.datasource.FencedDataSourceProxy;
import dev.fenced.Fencing;
import dev.fenced.spring.WithLease;
import dev.fenced.spring.it.app.TestApp;
import java.util.OptionalLong;
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

    /** A bean whose run() calls its own lease method: this.job() goes past the proxy and would run with no lease. */
    static class SelfCallingJob {
        public void run() {
            job();
        }

        @WithLease(name = "self-called", ttl = "10s")
        public void job() {}
    }

    /** The same call made through the other bean: the proxy runs it under its lease. */
    static class CallsAnotherBean {
        private final LeaseJob other;

        CallsAnotherBean(LeaseJob other) {
            this.other = other;
        }

        public OptionalLong run() {
            return other.job();
        }
    }

    static class LeaseJob {
        @WithLease(name = "called-through-the-bean", ttl = "10s")
        public OptionalLong job() {
            return Fencing.currentToken();
        }
    }

    @Test
    void aLeaseMethodCalledFromItsOwnBeanFailsStartUp() {
        // issue 25, item 5: without the agent, this.job() from run() bypasses Spring's proxy and runs with no lease
        Throwable e = assertThrows(Throwable.class, () -> start(new Class<?>[] {SelfCallingJob.class},
                "spring.datasource.url=" + TestDatabase.create().rawUrl(), "fenced.tables=totals", "fenced.missing-tables=warn").close());
        String message = messages(e);
        String job = SelfCallingJob.class.getName();
        assertTrue(message.contains(job + "#run calls " + job + "#job"), message);
        assertTrue(message.contains("no lease"), message);
        assertTrue(message.contains("inject the bean into itself") && message.contains("-javaagent"), message);
    }

    @Test
    void aLeaseMethodCalledThroughAnotherBeanStarts() {
        try (ConfigurableApplicationContext context = start(new Class<?>[] {LeaseJob.class, CallsAnotherBean.class},
                "spring.datasource.url=" + TestDatabase.create().rawUrl(), "fenced.tables=totals", "fenced.missing-tables=warn")) {
            assertTrue(context.getBean(CallsAnotherBean.class).run().isPresent(), "ran under its lease");
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return start(new Class<?>[0], properties);
    }

    private static ConfigurableApplicationContext start(Class<?>[] beans, String... properties) {
        return new SpringApplicationBuilder(TestApp.class).sources(beans).web(WebApplicationType.NONE)
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
