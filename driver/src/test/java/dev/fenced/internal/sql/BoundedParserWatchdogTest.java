package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The parse watchdog's thread keeps no application class loader alive and does not outlive the parses: it has
 * no context class loader, whoever parsed first, and it ends when idle.
 */
class BoundedParserWatchdogTest {

    @Test
    void theWatchdogThreadHasNoContextClassLoaderAndEndsWhenIdle() throws Exception {
        ClassLoader webApp = new URLClassLoader(new URL[0], null);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicReference<Thread> watchdog = new AtomicReference<>();
        Thread parser = new Thread(
                () -> {
                    try {
                        BoundedParser.parseStatements("UPDATE totals SET a = 1", Duration.ofMinutes(1));
                        watchdog.set(watchdogThread());
                    } catch (Throwable t) {
                        failed.set(t);
                    }
                },
                "a web app's request");
        parser.setContextClassLoader(webApp);
        parser.start();
        parser.join();
        assertNull(failed.get());
        Thread t = watchdog.get();
        assertNotNull(t, "a parse with a deadline starts the watchdog");
        assertNull(t.getContextClassLoader(), "the watchdog must not hold the first caller's class loader");
        assertTrue(t.isDaemon());
        assertTrue(BoundedParser.Watchdog.INSTANCE.allowsCoreThreadTimeOut(), "an idle watchdog's thread ends");
        assertEquals(
                BoundedParser.WATCHDOG_IDLE_SECONDS,
                BoundedParser.Watchdog.INSTANCE.getKeepAliveTime(java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, BoundedParser.Watchdog.INSTANCE.getQueue().size(), "a finished parse leaves no alarm queued");
    }

    private static Thread watchdogThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("fenced-parse-watchdog")) {
                return t;
            }
        }
        return null;
    }
}
