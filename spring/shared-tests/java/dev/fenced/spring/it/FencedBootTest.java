package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.it.support.TestDatabase;
import dev.fenced.shedlock.FencedLockProvider;
import dev.fenced.spring.dao.FencedLeaseLostException;
import dev.fenced.spring.dao.FencedSQLExceptionTranslator;
import dev.fenced.spring.dao.FencedStaleWriteException;
import dev.fenced.spring.dao.FencedWriteRefusedException;
import dev.fenced.internal.spring.datasource.FencedDataSourceProxy;
import dev.fenced.spring.it.app.AsyncProbe;
import dev.fenced.spring.it.app.Jobs;
import dev.fenced.spring.it.app.ListedJobs;
import dev.fenced.spring.it.app.ShedLockJob;
import dev.fenced.spring.it.app.TestApp;
import dev.fenced.spring.it.app.Total;
import dev.fenced.spring.it.app.TotalRepository;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One real application context on real PostgreSQL, with a plain {@code jdbc:postgresql:} URL: the starter fences
 * it in place. Everything the starter does is checked against this one context (each context start costs CI time).
 * Its output is captured from before the start, so what start-up logged can be checked too.
 */
@ExtendWith(OutputCaptureExtension.class)
class FencedBootTest {

    private static ConfigurableApplicationContext context;
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(TestApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.datasource.url=" + TestDatabase.create().rawUrl(),
                        "fenced.tables=totals,ledger",
                        "fenced.missing-tables=warn", // Flyway creates the table after the first connect
                        "fenced.lease.listed.method=dev.fenced.spring.it.app.ListedJobs#run",
                        "fenced.lease.listed.ttl=10s",
                        "spring.liquibase.change-log=classpath:db/changelog/ledger.sql",
                        // Liquibase may run first; Flyway then baselines at 0 and still runs V1 and V2
                        "spring.flyway.baseline-on-migrate=true", "spring.flyway.baseline-version=0",
                        "management.endpoint.health.probes.enabled=true",
                        "management.endpoint.health.show-details=always")
                .run();
        jdbc = context.getBean(JdbcTemplate.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    /**
     * Start-up logs neither Micrometer's "already registered" (fenced's meters bound twice: through Micrometer's
     * global registry, which Boot adds its registry to, and through the starter's MeterBinder) nor Spring's "not
     * eligible for getting processed by all BeanPostProcessors" for a bean of fenced's; each fenced meter is in the
     * application's registry once.
     */
    @Test
    void startUpLogsNoWarningOfFencedsMaking(CapturedOutput output) {
        String log = output.getAll();
        assertTrue(log.contains("fenced: DataSource bean 'dataSource'"), "start-up's output was not captured: " + log);
        assertFalse(log.contains("has been already registered"), log);
        for (String line : log.split("\\R")) {
            assertFalse(line.contains("not eligible for getting processed by all BeanPostProcessors")
                    && line.contains("fenced"), line);
        }
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        for (dev.fenced.internal.metrics.Counter c : dev.fenced.internal.metrics.Counter.values()) {
            assertEquals(1, registry.find(c.meterName()).meters().size(), c.meterName());
        }
    }

    @Test
    void theApplicationsPoolIsFencedInPlaceAndStillAHikariPool() throws Exception {
        DataSource ds = context.getBean(DataSource.class);
        assertInstanceOf(HikariDataSource.class, ds, "injection by the pool's type still works");
        assertInstanceOf(FencedDataSourceProxy.class, ds);
        assertTrue(ds.isWrapperFor(HikariConfigMXBean.class));
        assertNotNull(ds.unwrap(HikariDataSource.class).getHikariPoolMXBean(), "unwrap reaches the running pool");
        try (Connection c = ds.getConnection()) {
            assertTrue(c.nativeSQL("UPDATE totals SET amount = 1 WHERE restaurant_id = 1").contains("last_token"),
                    "connections are fenced: " + c.nativeSQL("UPDATE totals SET amount = 1 WHERE restaurant_id = 1"));
        }
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertNotNull(registry.find("hikaricp.connections").gauge(), "Hikari's own metrics still bind to the pool");
    }

    @Test
    void fencedDataSourceWrapFencesAnyPoolInPlace() throws Exception {
        HikariDataSource pool = context.getBean(DataSource.class).unwrap(HikariDataSource.class);
        java.util.Properties keys = new java.util.Properties();
        keys.setProperty("fenced.tables", "totals");
        DataSource fenced = dev.fenced.FencedDataSource.wrap(pool, keys);
        assertTrue(fenced.unwrap(HikariDataSource.class) == pool);
        try (Connection c = fenced.getConnection()) {
            assertTrue(c.nativeSQL("DELETE FROM totals WHERE restaurant_id = 9").contains("last_token"));
        }
        keys.setProperty("fenced.tabels", "totals");
        java.sql.SQLException bad = assertThrows(java.sql.SQLException.class, () -> dev.fenced.FencedDataSource.wrap(pool, keys));
        assertTrue(bad.getMessage().contains("unknown key 'fenced.tabels' in the properties given to FencedDataSource.wrap"),
                bad.getMessage());
    }

    @Test
    void migrationsRanUnfenced() {
        assertTrue(AopUtils.isAopProxy(context.getBean(Flyway.class)));
        // V1 and V2 insert into totals with no token: only an unfenced migration gets through (StartupTest)
        assertEquals(400L, jdbc.queryForObject("SELECT amount FROM totals WHERE restaurant_id = 4", Long.class));
        assertNull(jdbc.queryForObject("SELECT last_token FROM totals WHERE restaurant_id = 4", Long.class));
    }

    @Test
    void liquibaseRanUnfenced() {
        assertTrue(AopUtils.isAopProxy(context.getBean(liquibase.integration.spring.SpringLiquibase.class)));
        assertEquals(10L, jdbc.queryForObject("SELECT amount FROM ledger WHERE id = 1", Long.class));
        assertThrows(InvalidDataAccessApiUsageException.class, () -> jdbc.update("UPDATE ledger SET amount = 11"),
                "ledger is protected: only the unfenced migration could write it without a token");
    }

    @Test
    void aWriteWithNoTokenIsRefusedAsInvalidApiUsage() {
        InvalidDataAccessApiUsageException e = assertThrows(InvalidDataAccessApiUsageException.class,
                () -> jdbc.update("UPDATE totals SET amount = 5 WHERE restaurant_id = 2"));
        assertInstanceOf(FencedWriteRefusedException.class, e);
        assertInstanceOf(UnfencedWriteException.class, e.getCause());
        assertInstanceOf(FencedSQLExceptionTranslator.class, jdbc.getExceptionTranslator());
        assertNotNull(((FencedSQLExceptionTranslator) jdbc.getExceptionTranslator()).delegate(),
                "the translator JdbcTemplate had is decorated, not replaced");
    }

    @Test
    void aStaleWriteIsAnOptimisticLockingFailureAndCounted() {
        FunctionCounter stale = context.getBean(MeterRegistry.class).find("fenced.writes.stale").functionCounter();
        assertNotNull(stale, "fenced's counters are bound to the application's registry");
        double before = stale.count();
        try (FencingScope newer = Fencing.bind(Long.MAX_VALUE / 2)) {
            assertEquals(1, jdbc.update("UPDATE totals SET amount = 201 WHERE restaurant_id = 2"));
        }
        try (FencingScope older = Fencing.bind(Long.MAX_VALUE / 2 - 1)) {
            OptimisticLockingFailureException e = assertThrows(OptimisticLockingFailureException.class,
                    () -> jdbc.update("UPDATE totals SET amount = 202 WHERE restaurant_id = 2"));
            assertInstanceOf(FencedStaleWriteException.class, e);
            assertInstanceOf(StaleTokenException.class, e.getCause());
        }
        assertEquals(201L, jdbc.queryForObject("SELECT amount FROM totals WHERE restaurant_id = 2", Long.class));
        assertEquals(before + 1, stale.count());
    }

    @Test
    void aWriteUnderALostLeaseIsAConcurrencyFailure() throws Exception {
        LeaseManager leases = context.getBean(LeaseManager.class);
        Lease lease = leases.tryAcquire("short-lived", Duration.ofSeconds(10)).orElseThrow();
        long token = lease.token();
        lease.close();
        try (FencingScope late = Fencing.bind(token)) {
            ConcurrencyFailureException e = assertThrows(ConcurrencyFailureException.class,
                    () -> jdbc.update("UPDATE totals SET amount = 301 WHERE restaurant_id = 3"));
            assertInstanceOf(FencedLeaseLostException.class, e);
        }
    }

    @Test
    void aStaleJpaSaveIsAnOptimisticLockingFailureThroughTheRepositoryAndAtCommit() {
        TotalRepository totals = context.getBean(TotalRepository.class);
        try (FencingScope newer = Fencing.bind(Long.MAX_VALUE / 2)) {
            Total t = totals.findById(6).orElseThrow();
            t.setAmount(601);
            totals.saveAndFlush(t);
        }
        try (FencingScope older = Fencing.bind(Long.MAX_VALUE / 2 - 1)) {
            Total t = totals.findById(6).orElseThrow();
            t.setAmount(602);
            OptimisticLockingFailureException flushed = assertThrows(OptimisticLockingFailureException.class,
                    () -> totals.saveAndFlush(t), "save()+flush through the repository");
            assertInstanceOf(FencedStaleWriteException.class, flushed);
            assertTrue(hasCause(flushed, StaleTokenException.class), String.valueOf(flushed));

            // save() in a transaction: the UPDATE is flushed at commit, by the JpaTransactionManager
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            OptimisticLockingFailureException committed = assertThrows(OptimisticLockingFailureException.class,
                    () -> tx.executeWithoutResult(status -> {
                        Total u = totals.findById(6).orElseThrow();
                        u.setAmount(603);
                        totals.save(u);
                    }), "save() flushed at commit");
            assertInstanceOf(FencedStaleWriteException.class, committed);
        }
        assertEquals(601L, jdbc.queryForObject("SELECT amount FROM totals WHERE restaurant_id = 6", Long.class));
    }

    @Test
    void jpaWritesUnfencedOrUnderALostLeaseAreRefusedInSpringsTerms() throws Exception {
        TotalRepository totals = context.getBean(TotalRepository.class);
        Total t = totals.findById(7).orElseThrow();
        t.setAmount(701);
        InvalidDataAccessApiUsageException unfenced = assertThrows(InvalidDataAccessApiUsageException.class,
                () -> totals.saveAndFlush(t));
        assertInstanceOf(FencedWriteRefusedException.class, unfenced);

        Lease lease = context.getBean(LeaseManager.class).tryAcquire("jpa-short-lived", Duration.ofSeconds(10)).orElseThrow();
        long token = lease.token();
        lease.close();
        try (FencingScope late = Fencing.bind(token)) {
            ConcurrencyFailureException lost = assertThrows(ConcurrencyFailureException.class,
                    () -> totals.saveAndFlush(t));
            assertInstanceOf(FencedLeaseLostException.class, lost);
        }
        assertEquals(700L, jdbc.queryForObject("SELECT amount FROM totals WHERE restaurant_id = 7", Long.class));
    }

    @Test
    void aShedLockScheduledJobRunsUnderAFencedLeaseAndItsWriteCarriesTheToken() throws Exception {
        assertInstanceOf(FencedLockProvider.class, context.getBean(LockProvider.class),
                "ShedLock is on the class path and the application defines no LockProvider");
        long token = context.getBean(ShedLockJob.class).tokenOfTheRun();
        assertTrue(token > 0, "the @SchedulerLock method ran with a lease's token bound: " + token);
        assertEquals(token, jdbc.queryForObject("SELECT last_token FROM totals WHERE restaurant_id = 5", Long.class));
        assertEquals(501L, jdbc.queryForObject("SELECT amount FROM totals WHERE restaurant_id = 5", Long.class));
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void withLeaseRunsTheBodyUnderTheLeaseAndSkipsOrFailsWhileItIsBusy() throws Exception {
        Jobs jobs = context.getBean(Jobs.class);
        OptionalLong token = jobs.nightly(1000);
        assertTrue(token.isPresent(), "the body ran with the lease's token bound");
        assertEquals(token.getAsLong(), jdbc.queryForObject("SELECT last_token FROM totals WHERE restaurant_id = 1", Long.class));
        assertFalse(Fencing.currentToken().isPresent(), "the binding ends with the call");

        try (LeaseManager other = LeaseManager.builder(context.getBean(DataSource.class)).holder("other-instance").build();
             Lease held = other.tryAcquire("nightly", Duration.ofSeconds(10)).orElseThrow()) {
            assertNull(jobs.nightly(2000), "skip: the body does not run while another instance holds the lease");
            IllegalStateException e = assertThrows(IllegalStateException.class, jobs::nightlyOrFail);
            assertTrue(e.getMessage().contains("'nightly' is held elsewhere"), e.getMessage());
        }
        assertEquals(1000L, jdbc.queryForObject("SELECT amount FROM totals WHERE restaurant_id = 1", Long.class));
    }

    @Test
    void aConfigListedMethodRunsUnderItsLeaseWithoutTheAgent() throws Exception {
        ListedJobs listed = context.getBean(ListedJobs.class);
        assertTrue(listed.run() > 0, "fenced.lease.listed.method binds the lease's token");
        try (LeaseManager other = LeaseManager.builder(context.getBean(DataSource.class)).holder("other-instance").build();
             Lease held = other.tryAcquire("listed", Duration.ofSeconds(10)).orElseThrow()) {
            assertEquals(0L, listed.run(), "skipped while busy: a long method returns 0");
        }
    }

    @Test
    void asyncMethodsRunWithTheCallersToken() throws Exception {
        AsyncProbe probe = context.getBean(AsyncProbe.class);
        String caller = Thread.currentThread().getName();
        String seen;
        try (FencingScope scope = Fencing.bind(77)) {
            seen = probe.tokenSeen().get(10, TimeUnit.SECONDS);
        }
        assertTrue(seen.startsWith("77@"), seen);
        assertNotEquals(caller, seen.substring(3), "it ran on Spring's executor");
        String after = probe.tokenSeen().get(10, TimeUnit.SECONDS);
        assertTrue(after.startsWith("-1@"), "a pooled worker keeps no token after its task: " + after);
    }

    /**
     * Issue 25, item 1: Micrometer's propagation captured the unfenced section's marker, and the task's UPDATE
     * landed with no token after the section had closed. An unfenced section is for its own thread only.
     */
    @Test
    void aTaskHandedToSpringsExecutorInsideAnUnfencedSectionCarriesNoToken() throws Exception {
        AsyncProbe probe = context.getBean(AsyncProbe.class);
        java.util.concurrent.CountDownLatch sectionClosed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<String> task = Fencing.unfenced(() -> probe.runWhen(sectionClosed, () -> {
            try {
                jdbc.update("UPDATE totals SET amount = 401 WHERE restaurant_id = 1");
                return "landed";
            } catch (RuntimeException e) {
                return e.getClass().getSimpleName();
            }
        }));
        sectionClosed.countDown();
        assertEquals("FencedWriteRefusedException", task.get(10, TimeUnit.SECONDS));
    }

    @Test
    void healthIsUpAndInTheReadinessGroup() throws Exception {
        Object indicator = context.getBean("fencedHealthIndicator");
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        assertEquals("UP", status(health), String.valueOf(health));
        Object endpoint = context.getBean("healthEndpoint");
        Method forPath = endpoint.getClass().getMethod("healthForPath", String[].class);
        Object readiness = forPath.invoke(endpoint, (Object) new String[] {"readiness"});
        assertNotNull(readiness, "a readiness group exists");
        Map<?, ?> components = (Map<?, ?>) readiness.getClass().getMethod("getComponents").invoke(readiness);
        assertTrue(components.containsKey("fenced"), "fenced is in the readiness group: " + components.keySet());
        assertEquals("UP", status(components.get("fenced")));
    }

    private static String status(Object health) throws Exception {
        Object status = health.getClass().getMethod("getStatus").invoke(health);
        return (String) status.getClass().getMethod("getCode").invoke(status);
    }
}
