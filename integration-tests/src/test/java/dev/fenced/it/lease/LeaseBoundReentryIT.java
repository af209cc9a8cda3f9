package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.internal.lease.LeaseBoundCalls;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 25, item 6: a lease method re-entered (a nested call) after its lease was lost ran its body with no live
 * token while another holder was live; now the nested call throws {@link LeaseLostException} and its body does not
 * run.
 */
@ExtendWith(FencedTestExtension.class)
class LeaseBoundReentryIT {

    @Test
    void aNestedCallAfterTheLeaseWasTakenOverThrowsAndDoesNotRunItsBody(TestDatabase db) throws Exception {
        PGSimpleDataSource ds = DataSources.simple(db);
        LeaseBoundCalls calls = new LeaseBoundCalls(System.getLogger("test"));
        try (LeaseManager leases =
                LeaseManager.builder(ds).renewalInterval(Duration.ofMillis(100)).build()) {
            AutoCloseable outer =
                    calls.enter("nested", Duration.ofSeconds(20), LeaseMethod.OnBusy.SKIP, "Job#run", () -> leases);
            assertNotNull(outer, "the outer call runs under its lease");
            try {
                AtomicLong cell = FencedTestExtension.boundCell();
                assertNotNull(cell, "the outer call's lease is bound");
                db.execute("UPDATE fenced_lease SET holder = 'intruder', token = nextval('fenced_lease_token_seq')"
                        + " WHERE name = 'nested'");
                // the renewer poisons the bound cell when it sees the takeover (no callback reaches this lease)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (cell.get() > 0 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                assertTrue(cell.get() < 0, "the renewer saw the takeover");
                boolean[] bodyRan = {false};
                LeaseLostException e = assertThrows(LeaseLostException.class, () -> {
                    AutoCloseable inner = calls.enter(
                            "nested", Duration.ofSeconds(20), LeaseMethod.OnBusy.SKIP, "Job#run", () -> leases);
                    bodyRan[0] = inner != null;
                });
                assertTrue(!bodyRan[0], "the nested body did not run");
                assertTrue(e.getMessage().contains("Job#run"), e.getMessage());
            } finally {
                outer.close();
            }
        }
    }
}
