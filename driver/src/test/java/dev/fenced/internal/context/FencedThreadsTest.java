package dev.fenced.internal.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** fenced's threads: named, daemons, no context class loader, made with no token bound; stopped with their owner. */
class FencedThreadsTest {

    @Test
    void threadsAreNamedDaemonsWithoutAContextClassLoaderWhateverTheCreatorHas() {
        Thread creator = Thread.currentThread();
        ClassLoader before = creator.getContextClassLoader();
        AtomicLong cell = new AtomicLong(42);
        AtomicLong previous = ContextAccess.swap(cell);
        creator.setContextClassLoader(new URLClassLoader(new URL[0], null));
        try {
            Thread t = FencedThreads.newThread("fenced-test", () -> {});
            assertEquals("fenced-test", t.getName());
            assertTrue(t.isDaemon());
            assertNull(t.getContextClassLoader());
            assertSame(cell, ContextAccess.current(), "the creator's binding is back after the thread is made");
            assertEquals(
                    "fenced-test",
                    FencedThreads.named("fenced-test").newThread(() -> {}).getName());
        } finally {
            creator.setContextClassLoader(before);
            ContextAccess.swap(previous);
        }
    }

    @Test
    void closeShutsDownEveryExecutorOfTheOwner() {
        FencedThreads threads = new FencedThreads();
        ScheduledThreadPoolExecutor timer = threads.timer("fenced-test-timer");
        ThreadPoolExecutor pool = threads.pool("fenced-test-pool", 4, 1);
        threads.close();
        assertTrue(timer.isShutdown());
        assertTrue(pool.isShutdown());
    }
}
