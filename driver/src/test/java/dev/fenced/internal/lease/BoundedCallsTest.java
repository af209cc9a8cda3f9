package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingException;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.pg.PgStates;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bounds every lease-store call has, PostgreSQL's ({@link StoreCalls}) and any SPI store's ({@link BoundedStore})
 * alike: the caller waits at most its budget, the call is then cut short or given its grace, and what the store
 * threw reaches the caller as an SQLException.
 */
class BoundedCallsTest {

    private static final long BUDGET = TimeUnit.MILLISECONDS.toNanos(200);

    private final FencedThreads threads = new FencedThreads();
    private final BoundedCalls calls = new BoundedCalls(threads, "bounded-test", "test", null);

    @AfterEach
    void close() {
        threads.close();
    }

    @Test
    void aCallOverItsBudgetTimesOutAndIsCutShort() throws Exception {
        CountDownLatch cut = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        SQLTimeoutException e = assertThrows(
                SQLTimeoutException.class,
                () -> calls.run(
                        "stall",
                        BUDGET,
                        call -> {
                            call.begin(cut::countDown);
                            try {
                                new CountDownLatch(1).await();
                            } catch (InterruptedException stopped) {
                                interrupted.countDown();
                            }
                            return null;
                        },
                        false));
        assertEquals(PgStates.QUERY_CANCELED, e.getSQLState());
        assertTrue(e.getMessage().contains("(test) did not answer within 200 ms (stall)"), e.getMessage());
        assertTrue(cut.await(10, TimeUnit.SECONDS), "the work's own cut ran");
        assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the worker was interrupted");
        assertEquals(1, calls.timeouts());
    }

    @Test
    void aCallThatUndoesItsLateAnswerIsGivenAsLongAgainAndSeesItCameLate() throws Exception {
        CountDownLatch answer = new CountDownLatch(1);
        CompletableFuture<Boolean> late = new CompletableFuture<>();
        long budget = TimeUnit.SECONDS.toNanos(1); // the grace: the answer below comes well within it
        SQLTimeoutException e = assertThrows(
                SQLTimeoutException.class,
                () -> calls.run(
                        "grant",
                        budget,
                        call -> {
                            call.begin(() -> late.completeExceptionally(new AssertionError("cut within its grace")));
                            answer.await(); // interrupted only after the grace
                            late.complete(call.abandoned());
                            return 1L;
                        },
                        true));
        assertTrue(e.getMessage().contains("a late answer is undone"), e.getMessage());
        answer.countDown();
        assertTrue(late.get(10, TimeUnit.SECONDS), "the work learnt that its caller had given up");
    }

    @Test
    void aCallGivenUpBeforeItBeganIsExplainedByTheStore() {
        BoundedCalls explained = new BoundedCalls(
                threads,
                "bounded-test-pool",
                "test",
                (what, ms) -> new SQLTransientConnectionException("no connection for " + what + " in " + ms + " ms"));
        CountDownLatch never = new CountDownLatch(1);
        SQLTransientConnectionException e = assertThrows(
                SQLTransientConnectionException.class,
                () -> explained.run(
                        "release",
                        BUDGET,
                        call -> {
                            never.await(); // a pool that never lends a connection
                            return 0;
                        },
                        false));
        assertEquals("no connection for release in 200 ms", e.getMessage());
    }

    /** What the caller of a grant gets when the store throws {@code thrown}. */
    private Throwable failureOfAGrantThatThrows(Throwable thrown) {
        return assertThrows(
                Throwable.class,
                () -> calls.run(
                        "grant lease 'x'",
                        BUDGET,
                        call -> {
                            if (thrown instanceof Error error) {
                                throw error;
                            }
                            throw (Exception) thrown;
                        },
                        false));
    }

    @Test
    void anSqlExceptionReachesTheCallerAsItself() {
        SQLException thrown = new SQLException("refused", "08006");
        assertSame(thrown, failureOfAGrantThatThrows(thrown));
    }

    @Test
    void anUncheckedFailureOfTheStoreBecomesALeaseStoreError() {
        IllegalStateException thrown = new IllegalStateException("network closed");
        FencingException e = assertInstanceOf(FencingException.class, failureOfAGrantThatThrows(thrown));
        assertEquals(FencingException.LEASE_STORE, e.getSQLState());
        assertSame(thrown, e.getCause());
        assertTrue(e.getMessage().contains("the lease store (test) failed to grant lease 'x'"), e.getMessage());
    }

    @Test
    void anErrorReachesTheCallerAsItself() {
        AssertionError thrown = new AssertionError("bug");
        assertSame(thrown, failureOfAGrantThatThrows(thrown));
    }

    @Test
    void aClosedManagerRefusesNewCalls() {
        threads.close();
        FencingException e = assertInstanceOf(
                FencingException.class,
                assertThrows(SQLException.class, () -> calls.run("grant", BUDGET, call -> 1, false)));
        assertTrue(e.getMessage().contains("its LeaseManager is closed"), e.getMessage());
    }
}
