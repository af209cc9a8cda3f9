package dev.fenced.internal.observe;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which frames the inventory steps over to find a writer. */
class CallSitesTest {

    @Test
    void fencedItselfTheJdkAndTheConfiguredPrefixesAreSkipped() {
        List<String> skip = List.of("java.", "com.zaxxer.hikari.", "org.springframework.");
        assertTrue(CallSites.skipped("dev.fenced.internal.jdbc.FencedStatement", skip));
        assertTrue(CallSites.skipped("dev.fenced.Fencing", skip));
        assertTrue(CallSites.skipped("dev.fenced.internal.jsqlparser.Foo", skip));
        assertTrue(CallSites.skipped("java.util.concurrent.FutureTask", skip));
        assertTrue(CallSites.skipped("com.zaxxer.hikari.pool.ProxyStatement", skip));
        assertTrue(CallSites.skipped("org.springframework.jdbc.core.JdbcTemplate", skip));
        // the application's code, and fenced's own tests, demo and bench, are call sites
        assertFalse(CallSites.skipped("com.acme.Jobs", skip));
        assertFalse(CallSites.skipped("dev.fenced.it.RolloutIT", skip));
        assertFalse(CallSites.skipped("dev.fenced.demo.Worker", skip));
    }
}
