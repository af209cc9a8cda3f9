package dev.fenced.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each owner counts for itself, and every count also reaches the JVM-wide totals. */
class TrackerTest {

    @Test
    void twoOwnersCountApartAndTheTotalsSeeBoth() {
        Tracker one = new Tracker();
        Tracker two = new Tracker();
        long staleBefore = Tracker.totals().value(Counter.STALE_WRITES_REFUSED);
        long fencedBefore = Tracker.totals().value(Counter.WRITES_FENCED);
        long totalsOnTable = Tracker.totals().staleByTable().getOrDefault("tracker_test", 0L);

        one.staleWriteRefused("tracker_test");
        two.add(Counter.WRITES_FENCED, 3);

        assertEquals(1, one.counts().value(Counter.STALE_WRITES_REFUSED));
        assertEquals(0, two.counts().value(Counter.STALE_WRITES_REFUSED));
        assertEquals(Map.of("tracker_test", 1L), one.counts().staleByTable());
        assertEquals(3, two.counts().value(Counter.WRITES_FENCED));
        assertEquals(staleBefore + 1, Tracker.totals().value(Counter.STALE_WRITES_REFUSED));
        assertEquals(fencedBefore + 3, Tracker.totals().value(Counter.WRITES_FENCED));
        assertEquals(totalsOnTable + 1, Tracker.totals().staleByTable().get("tracker_test"));
        assertEquals(Counter.values().length, one.counts().counters().size(), "every counter, by meter name");
    }
}
