package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Ticker;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.metrics.Tracker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease timing against a clock the test moves: the drift margin, the write path's own deadline check,
 * renewals that extend (and never shorten) the deadline, close against loss, the renewal budget. No
 * database, no sleeping: every instant is chosen.
 */
class LeaseClockTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final Ticker clock = now::get;
    private final LeaseStore store = new LeaseStore(null, LeaseTableName.parse("fenced_lease"), false, "clock-test");
    private final FencedThreads threads = new FencedThreads();
    private final Tracker tracker = new Tracker();
    private final Renewer renewer =
            new Renewer(store, "clock-holder", "clock-test", clock, 1_000 * MS, tracker, threads);
    private final CallbackDispatcher dispatcher = new CallbackDispatcher("clock-test-callbacks", threads);
    private final LeaseContext context =
            new LeaseContext(store, "clock-holder", renewer, dispatcher, clock, 10 * MS, true, tracker);

    @AfterEach
    void stop() {
        renewer.stop();
        threads.close();
        ContextAccess.swap(null);
    }

    private HeldLease lease(long token, long ttlMillis, long marginMillis) {
        return new HeldLease(
                "clock-" + token, token, ttlMillis, ttlMillis * MS / 3, now.get(), marginMillis * MS, context);
    }

    @Test
    void theDeadlineIsTheTtlLessTheMarginFromWhenTheGrantWasSent() {
        HeldLease lease = lease(11, 1_000, 100);
        now.addAndGet(899 * MS);
        assertTrue(lease.isValid());
        now.addAndGet(MS);
        assertFalse(lease.isValid(), "900 ms after the send, a 1000 ms lease with a 100 ms margin is over");
    }

    @Test
    void aWriteAfterTheDeadlineSeesThePoisonedTokenWithoutTheTimer() throws Exception {
        HeldLease lease = lease(12, 1_000, 100);
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(l -> lost.countDown());
        AtomicLong cell = cellOf(lease);
        now.addAndGet(899 * MS);
        assertEquals(12, DeadlineCell.valueForWrite(cell));
        now.addAndGet(MS);
        assertEquals(-12, DeadlineCell.valueForWrite(cell), "the write path itself loses the lease at the deadline");
        assertFalse(lease.isHeld());
        assertTrue(lost.await(10, TimeUnit.SECONDS), "onLost runs (on the callback thread)");
    }

    @Test
    void aRenewalMovesTheDeadlineFromItsSendTimeAndALateOlderAnswerNeverShortensIt() {
        HeldLease lease = lease(13, 1_000, 100);
        long granted = now.get();
        lease.renewed(granted + 500 * MS);
        assertEquals(granted + 1_400 * MS, lease.deadlineNanos());
        lease.renewed(granted + 300 * MS); // an older renewal's answer arriving late
        assertEquals(granted + 1_400 * MS, lease.deadlineNanos());
        now.set(granted + 1_399 * MS);
        assertTrue(lease.isValid());
        now.set(granted + 1_400 * MS);
        assertFalse(lease.isValid());
        lease.renewed(granted + 1_300 * MS); // a renewal that answers after the loss revives nothing
        assertFalse(lease.isValid());
        assertTrue(DeadlineCell.valueForWrite(cellOf(lease)) < 0);
    }

    @Test
    void closeBeforeTheDeadlineRunsNoCallbackAndALaterDeadlineChangesNothing() {
        HeldLease lease = lease(14, 1_000, 100);
        AtomicInteger calls = new AtomicInteger();
        lease.onLost(l -> calls.incrementAndGet());
        AtomicLong cell = cellOf(lease);
        lease.close();
        assertEquals(-14, cell.get());
        now.addAndGet(5_000 * MS);
        assertEquals(-14, DeadlineCell.valueForWrite(cell));
        assertFalse(lease.isValid());
        lease.lose("late");
        assertEquals(0, calls.get(), "a closed lease is not lost");
    }

    /** A renewal whose answer arrives after the holder closed the lease must not make its token live again. */
    @Test
    void aRenewalAnsweredAfterCloseRevivesNothing() {
        HeldLease lease = lease(18, 1_000, 100);
        AtomicLong cell = cellOf(lease);
        long sent = now.get() + 300 * MS; // the renewer sent this before the close
        lease.close();
        lease.renewed(sent);
        assertFalse(lease.isValid());
        assertEquals(-18, DeadlineCell.valueForWrite(cell));
        assertEquals(now.get() + 900 * MS, lease.deadlineNanos(), "the deadline did not move either");
    }

    @Test
    void aLeaseLostByTheWritePathAndClosedByItsHolderEndsOnce() throws Exception {
        HeldLease lease = lease(15, 1_000, 0);
        CountDownLatch lost = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        lease.onLost(l -> {
            calls.incrementAndGet();
            lost.countDown();
        });
        now.addAndGet(1_000 * MS);
        assertTrue(DeadlineCell.valueForWrite(cellOf(lease)) < 0);
        lease.close();
        lease.lose("again");
        assertTrue(lost.await(10, TimeUnit.SECONDS));
        assertEquals(1, calls.get());
    }

    @Test
    void aRenewalGetsHalfTheTimeToItsDeadlineWithinBounds() {
        assertEquals(1_000 * MS, Renewer.budget(10_000 * MS, 1_000 * MS), "never more than the store timeout");
        assertEquals(300 * MS, Renewer.budget(600 * MS, 1_000 * MS), "half the time left, so a retry still fits");
        assertEquals(Renewer.MIN_BUDGET_NANOS, Renewer.budget(10 * MS, 1_000 * MS), "never less than the minimum");
        assertEquals(Renewer.MIN_BUDGET_NANOS, Renewer.budget(-5 * MS, 1_000 * MS));
    }

    @Test
    void aFailedRenewalIsRetriedWithinAQuarterOfTheInterval() {
        HeldLease lease = lease(16, 3_000, 300);
        long retry = Renewer.retryAt(now.get(), lease);
        assertEquals(now.get() + 250 * MS, retry);
        assertTrue(retry - lease.deadlineNanos() < 0, "the retry comes before the deadline");
        HeldLease tiny = lease(17, 30, 3);
        assertEquals(now.get() + 20 * MS, Renewer.retryAt(now.get(), tiny), "never a busy loop");
    }

    private static AtomicLong cellOf(HeldLease lease) {
        lease.bindToCurrentThread();
        AtomicLong cell = ContextAccess.current();
        ContextAccess.swap(null);
        return cell;
    }
}
