package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.locks.node.LateWrite;
import dev.fenced.it.locks.node.NightlyTotals;
import dev.fenced.it.locks.node.NodeJvm;
import dev.fenced.it.locks.node.NodeJvm.Run;
import dev.fenced.it.locks.node.SchedulerLibrary;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each lock library in its own run loop on two nodes, each node a JVM of its own ({@link NodeJvm}) with its own pool
 * and lease manager, against one database through the fenced driver. Node A's first run reads the total under its
 * lease and is then frozen whole with {@code kill -STOP} (its lease renewals, heartbeats and scheduler threads with
 * it) until node B, once A's lease has run out, has run the job twice; then A is thawed with {@code kill -CONT} and
 * writes its late total, under the library's binding or under a copy of its token bound while it was valid
 * ({@link LateWrite}). It is refused and counted in A; the row keeps the newer data; no two successful runs
 * (reported by the nodes with the machine's monotonic clock) overlap; the total counts every successful run once.
 */
class FrozenJvmTwoNodesIT {

    /** A renewed lease's ttl: it runs out at most this long after the node is frozen. */
    private static final Duration TTL = Duration.ofMillis(1000);
    /**
     * ShedLock's lockAtMostFor, never renewed: it must outlast node B's start, so that A is frozen while its lease
     * is still valid and stays frozen past its end.
     */
    private static final Duration AT_MOST_FOR = Duration.ofMillis(5000);

    /** Every library, its job writing on its own thread, or under a copy of its token bound at its start. */
    static Stream<Arguments> cases() {
        return Stream.of(SchedulerLibrary.values())
                .flatMap(library -> Stream.of(
                        Arguments.of(library, LateWrite.OWN_THREAD),
                        Arguments.of(library, LateWrite.COPY_BOUND_EARLY)));
    }

    /**
     * OWN_THREAD: the refusal comes from whichever check sees the late write first, the driver knowing the lease
     * lost (LeaseLostException, counted as fenced.writes.lease_lost) or PostgreSQL (StaleTokenException,
     * fenced.writes.stale). COPY_BOUND_EARLY: only PostgreSQL's fence can refuse it.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aNodeFrozenPastItsLeaseHasItsLateWriteRefusedAndRunsNeverOverlap(SchedulerLibrary library, LateWrite how)
            throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(NightlyTotals.TABLE_DDL);
        db.execute(NightlyTotals.RESET);
        library.createTables(db);
        Duration ttl = library.renews() ? TTL : AT_MOST_FOR;
        long began = System.nanoTime();

        try (NodeJvm a = NodeJvm.start(library, "a", db, ttl, true, how)) {
            long aToken = Long.parseLong(a.await("INSIDE ").substring("INSIDE ".length()));
            assertTrue(LeaseRows.isTaken(db, library.leaseName()), "A is inside its job, holding the lease");
            try (NodeJvm b = NodeJvm.start(library, "b", db, ttl, false, how)) {
                a.jvm().signal("STOP");
                a.jvm().awaitStopped(Duration.ofSeconds(5));
                long stoppedAt = System.nanoTime();
                assertTrue(LeaseRows.isTaken(db, library.leaseName()), "A is frozen holding a valid lease");

                b.awaitRun();
                Run second = b.awaitRun();
                long frozenFor = System.nanoTime() - stoppedAt;
                // Frozen with a valid lease, still frozen when B ran under a newer one: frozen past its lease's end.
                assertTrue(a.jvm().isStopped(), "A is still frozen");
                assertTrue(second.token() > aToken, "B runs under a newer token");

                a.jvm().send("WRITE"); // waits in the pipe: A reads it the moment it runs again
                a.jvm().signal("CONT");
                String outcome = a.await("REFUSED ", "RAN ", "UNEXPECTED ");
                assertTrue(outcome.startsWith("REFUSED " + aToken + " "), "A's late write is refused: " + outcome);
                assertTrue(
                        outcome.contains("StaleTokenException")
                                || how == LateWrite.OWN_THREAD && outcome.contains("LeaseLostException"),
                        outcome);
                if (outcome.contains("LeaseLostException")) {
                    assertTrue(outcome.contains(library.leaseName()), "the refusal names the lease: " + outcome);
                }
                long rowToken = db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = 77");
                assertTrue(rowToken > aToken, "the row keeps the newer holder's data, token " + rowToken);

                a.stop();
                b.stop();
                System.out.printf(
                        "%s %s: A frozen %d ms; A's late write: %s; runs A %d, B %d; %d ms in all%n",
                        library,
                        how,
                        frozenFor / 1_000_000,
                        outcome,
                        a.runs().size(),
                        b.runs().size(),
                        (System.nanoTime() - began) / 1_000_000);

                assertCounted(outcome);
                assertTrue(
                        a.lines("UNEXPECTED ").isEmpty()
                                && b.lines("UNEXPECTED ").isEmpty(),
                        "unexpected failures");
                assertEquals(
                        1, a.lines("REFUSED ").size() + b.lines("REFUSED ").size(), "one refused write, A's late one");
                if (library.renews()) {
                    // A's lease was renewed while A ran: B could only run once A was frozen.
                    assertTrue(b.runs().stream().allMatch(r -> r.start() > stoppedAt), "B ran while A held the lease");
                }
                List<Run> runs = new ArrayList<>(a.runs());
                runs.addAll(b.runs());
                JobAudit.assertNoOverlapNoLostUpdate(db, runs);
            }
        }
    }

    /** A's fenced.writes.stale plus fenced.writes.lease_lost, as A reported them after its refused write: one. */
    private static void assertCounted(String outcome) {
        long stale = Long.parseLong(outcome.replaceAll(".* stale=(\\d+) .*", "$1"));
        long lost = Long.parseLong(outcome.replaceAll(".* lost=(\\d+) .*", "$1"));
        assertEquals(1, stale + lost, "the refused write is counted once: " + outcome);
        assertEquals(
                outcome.contains("StaleTokenException") ? 1 : 0, stale, "counted where it was refused: " + outcome);
    }
}
