package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.metrics.Tracker;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Who keeps runtimes: a DataSource its own, in one tracker; the driver a bounded number, least recently connected
 * out. A configuration with nothing protected needs no catalog read, so no database is needed here.
 */
class RuntimesTest {

    private static FencedConfig config(String refresh) throws Exception {
        return ConfigLoader.forApplication("RuntimesTest", Map.of("fenced.catalogRefresh", refresh));
    }

    @Test
    void aDataSourcesRuntimesShareItsTrackerAndTheDriversEachHaveOne() throws Exception {
        FencedConfig config = config("60s");
        Runtimes dataSource = Runtimes.ofDataSource();
        FencedRuntime alice = dataSource.forDatabase("db|alice", config, null, null);
        FencedRuntime bob = dataSource.forDatabase("db|bob", config, null, null);
        assertNotSame(alice, bob);
        assertSame(alice.tracker(), bob.tracker());
        assertSame(alice, dataSource.forDatabase("db|alice", config, null, null));

        Runtimes driver = new Runtimes(null, 4, dev.fenced.Ticker.system());
        assertNotSame(
                driver.forDatabase("one", config, null, null).tracker(),
                driver.forDatabase("two", config, null, null).tracker());
    }

    @Test
    void theDriverKeepsABoundedNumberLeastRecentlyConnectedOut() throws Exception {
        FencedConfig config = config("60s");
        Runtimes driver = new Runtimes(null, 2, dev.fenced.Ticker.system());
        FencedRuntime a = driver.forDatabase("a", config, null, null);
        FencedRuntime b = driver.forDatabase("b", config, null, null);
        assertSame(a, driver.forDatabase("a", config, null, null)); // a is now the most recent
        driver.forDatabase("c", config, null, null); // b goes
        assertSame(a, driver.forDatabase("a", config, null, null));
        assertNotSame(
                b,
                driver.forDatabase("b", config, null, null),
                "an evicted runtime is built again at the next connect");
    }

    @Test
    void theCatalogIsReadAgainWhenTheIntervalHasPassedOnTheTicker() throws Exception {
        AtomicLong now = new AtomicLong();
        Runtimes runtimes = new Runtimes(new Tracker(), 1, now::get);
        FencedRuntime runtime = runtimes.forDatabase("db", config("60s"), null, null);
        AtomicInteger asked = new AtomicInteger();
        Connection connection = (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getAutoCommit")) {
                        asked.incrementAndGet(); // the first thing a due re-read does
                        return true;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        now.addAndGet(Duration.ofSeconds(59).toNanos());
        runtime.refreshIfDue(connection);
        assertEquals(0, asked.get(), "59 s on the ticker: not due");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        runtime.refreshIfDue(connection);
        assertEquals(1, asked.get(), "60 s on the ticker: due");
    }
}
