package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.TestDatabase;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The counters move, and are visible over JMX and Micrometer. */
class MetricsIT {

    @Test
    void staleWritesAreCountedPerTableAndPublished() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.addRegistry(registry);
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 0, 50)");
        long staleBefore = FencedStats.counters().get("fenced.writes.stale");
        long fencedBefore = FencedStats.counters().get("fenced.writes.fenced");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement()) {
            try (FencingScope ignored = Fencing.bind(49)) {
                assertThrows(StaleTokenException.class, () -> s.executeUpdate("UPDATE totals SET amount = 1"));
            }
            try (FencingScope ignored = Fencing.bind(51)) {
                s.executeUpdate("UPDATE totals SET amount = 2");
            }
        }
        Map<String, Long> now = FencedStats.counters();
        assertEquals(staleBefore + 1, now.get("fenced.writes.stale"));
        assertEquals(fencedBefore + 1, now.get("fenced.writes.fenced"));
        assertTrue(FencedStats.staleWritesByTable().get("totals") >= 1);

        ObjectName name = new ObjectName("dev.fenced:type=Metrics");
        var server = ManagementFactory.getPlatformMBeanServer();
        assertEquals(now.get("fenced.writes.stale"), server.getAttribute(name, "StaleWritesRefused"));
        assertEquals(
                (double) now.get("fenced.writes.stale"),
                registry.get("fenced.writes.stale").functionCounter().count());
    }
}
