package dev.fenced.it.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.demo.DemoMain;
import dev.fenced.demo.ModeFigures;
import dev.fenced.it.support.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The main job's short scenario on a real server: with a lease alone, holders frozen past their lease
 * overwrite newer totals; with a lease plus fenced, every such stale write is refused and no total is
 * wrong. The counts must agree with each other.
 */
class NightlyTotalsDemoIT {

    @Test
    void leaseAloneCorruptsTotalsAndFencedRefusesEveryStaleWrite() throws Exception {
        List<ModeFigures> figures =
                DemoMain.figures("--quick", "--jdbc-url", TestDatabase.create().rawUrl());
        ModeFigures lease = figures.get(0);
        ModeFigures fenced = figures.get(1);
        assertEquals("lease", lease.mode());
        assertEquals("fenced", fenced.mode());
        for (ModeFigures f : figures) {
            assertEquals(0, f.unfinished(), f.mode() + ": every restaurant's run finished");
            assertTrue(f.freezes() > 0, f.mode() + ": holders froze past their lease");
            assertTrue(f.secondHolders() >= f.freezes(), f.mode() + ": each freeze let a second holder in");
            assertEquals(
                    f.staleAttempted(),
                    f.staleRefused() + f.staleLandedHarmlessly() + f.staleLandedHarmfully(),
                    f.mode() + ": every stale attempt is accounted for");
            assertTrue(f.wrongTotals() <= f.staleLandedHarmfully(), f.mode() + ": only overwrites can corrupt a total");
        }
        assertEquals(lease.freezes(), fenced.freezes(), "both modes see the same nights");

        assertEquals(0, lease.staleRefused(), "a lease alone refuses nothing");
        assertTrue(lease.staleLandedHarmfully() > 0, "frozen holders overwrote newer totals");
        assertTrue(lease.wrongTotals() > 0, "and left totals wrong against the orders");
        assertTrue(lease.lostOrders() > 0);

        assertEquals(0, fenced.wrongTotals(), "fenced: no total is wrong");
        assertEquals(0, fenced.staleLandedHarmfully(), "fenced: no stale write landed over a newer one");
        assertTrue(fenced.staleRefusedByDatabase() > 0, "the database itself refused writes already on their way");
        assertEquals(
                fenced.staleAttempted() - fenced.staleLandedHarmlessly(),
                fenced.staleRefused(),
                "refused = stale writes that came after the newer holder's write");
    }

    /**
     * {@code --databases 2}: each total is also copied into a ledger in a second database, one lease (its tokens of a
     * named domain) fencing both. The lease alone leaves the ledger as wrong as the totals; fenced leaves neither wrong,
     * the ledger's own rows refusing the stale copies.
     */
    @Test
    void oneLeaseFencesBothDatabasesOfTheJob() throws Exception {
        List<ModeFigures> figures = DemoMain.figures(
                "--quick",
                "--databases",
                "2",
                "--jdbc-url",
                TestDatabase.create().rawUrl());
        ModeFigures lease = figures.get(0);
        ModeFigures fenced = figures.get(1);
        assertTrue(lease.wrongLedger() > 0, "the lease alone: stale copies overwrote newer ledger rows");
        assertEquals(0, fenced.wrongLedger(), "fenced: no ledger row is wrong");
        assertEquals(0, fenced.wrongTotals(), "fenced: no total is wrong");
        assertEquals(0, fenced.unfinished());
        assertTrue(fenced.staleRefusedByDatabase() > 0);
    }
}
