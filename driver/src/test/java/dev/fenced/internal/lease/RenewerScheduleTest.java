package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.Ticker;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.metrics.Tracker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** However leases come and go, the renewer plans exactly one tick. No database: nothing here is due. */
class RenewerScheduleTest {

    @AfterEach
    void unbind() {
        ContextAccess.swap(null);
    }

    @Test
    void eachEarlierLeaseReplacesThePlannedTickInsteadOfAddingOne() {
        LeaseStore store = new LeaseStore(null, LeaseTableName.parse("fenced_lease"), false, "schedule-test");
        FencedThreads threads = new FencedThreads();
        Tracker tracker = new Tracker();
        Renewer renewer =
                new Renewer(store, "test-holder", "schedule-test", Ticker.system(), 1_000_000_000L, tracker, threads);
        LeaseContext context = new LeaseContext(
                store,
                "test-holder",
                renewer,
                new CallbackDispatcher("cb-test", threads),
                Ticker.system(),
                1_000_000_000L,
                true,
                tracker);
        try {
            List<HeldLease> leases = new ArrayList<>();
            long now = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                // Each lease is due a little earlier than the one before: every add moves the plan.
                long renewEvery = TimeUnit.SECONDS.toNanos(2000 - i);
                HeldLease lease =
                        new HeldLease("l" + i, 1_000_000 + i, TimeUnit.HOURS.toMillis(2), renewEvery, now, 0, context);
                leases.add(lease);
                renewer.add(lease);
            }
            assertEquals(1, renewer.queuedTicks());
            for (HeldLease lease : leases) {
                renewer.forget(lease);
            }
        } finally {
            renewer.stop();
            threads.close();
        }
    }
}
