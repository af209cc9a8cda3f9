package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.EtcdCluster;
import dev.fenced.it.support.EtcdMember;
import dev.fenced.it.support.LoopbackCut;
import dev.fenced.it.tokens.EtcdClusterLeaseIT.Recorder;
import dev.fenced.lease.etcd.EtcdLeaseStore;
import io.etcd.jetcd.Client;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One member of a real three-member etcd cluster on loopback cut off from the other two while clients still reach
 * it ({@link EtcdCluster#partition}: iptables on {@code lo}, each member its own user): in turn the leader, then a
 * follower. A holder whose client talks only to that member holds a lease when the cut comes; a rival talks only to
 * the other two. Checked each run: the holder's lease is never valid past its deadline (send time of its last
 * acknowledged call + ttl): its renewals are reads and keep-alives that a minority member cannot linearize, so it is
 * lost by then and the holder is told; the majority (electing a new leader when the leader was cut off) grants again,
 * the holder's name to the rival only once the holder's lease is invalid, with a greater token; the holder's writes
 * are refused afterwards (by the driver, its token poisoned; by PostgreSQL, a write under its old token); across the
 * runs no token repeats or goes backwards. Printed: the majority's unavailability (from the cut to the first grant
 * sent after it that succeeded), p50 and max over the runs, and per run when the holder lost its lease, when the
 * rival had the name, and how long the cut-off member took to serve again once the cut was lifted.
 */
class EtcdMemberPartitionIT {

    static final String NAME = "partitioned-job";
    static final String PREFIX = "fenced/leases/";
    static final Duration TTL = Duration.ofSeconds(3);
    static final Duration STORE_TIMEOUT = Duration.ofSeconds(1);
    static final Duration RECOVERY = Duration.ofSeconds(15);
    /** Runs per kind (leader cut off, follower cut off); two each keep the test near 40 s. */
    static final int RUNS = Integer.getInteger("fenced.it.etcdPartitionRuns", 2);

    EtcdCluster cluster;

    @BeforeEach
    void start() throws Exception {
        Services.require(
                EtcdCluster.binaryPresent(),
                "etcd is not installed (apt-get install -y etcd-server): the etcd cluster cannot be tested");
        Services.require(
                LoopbackCut.available() && isRoot(),
                "a member partition needs iptables (apt-get install -y iptables) and root (rules on lo, members run as"
                        + " users of their own)");
        cluster = EtcdCluster.startAsOwnUsers("fenced-partition", 3);
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (Exception e) {
            return false;
        }
    }

    /** What one run measured, in ms. */
    record Run(String what, long unavailable, long lostAfterAck, long rivalAfterCut, long rejoined) {}

    @Test
    void aMemberCutOffFromItsPeersLosesItsHoldersLeaseByTheirDeadlineAndTheMajorityGrantsAgain() throws Exception {
        FencedTable table = FencedTable.create(EtcdLeaseStore.DOMAIN);
        List<long[]> grants = new ArrayList<>();
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < 2 * RUNS; i++) {
            runs.add(run(table, i, i % 2 == 0, grants));
        }
        runs.forEach(r -> System.out.printf(
                "etcd partition: %s: majority unavailable %d ms; holder's lease lost %d ms after its last acknowledged"
                        + " call was sent (ttl %d ms); rival had the name %d ms after the cut; the cut-off member"
                        + " granted again %d ms after the cut was lifted%n",
                r.what(), r.unavailable(), r.lostAfterAck(), TTL.toMillis(), r.rivalAfterCut(), r.rejoined()));
        for (String kind : List.of("leader", "follower")) {
            long[] ms = runs.stream()
                    .filter(r -> r.what().startsWith(kind))
                    .mapToLong(Run::unavailable)
                    .sorted()
                    .toArray();
            System.out.printf(
                    "etcd partition: %s cut off, %d runs: majority unavailable p50 %d ms, max %d ms %s%n",
                    kind, ms.length, ms[(ms.length - 1) / 2], ms[ms.length - 1], Arrays.toString(ms));
        }
        EtcdClusterLeaseIT.assertTokensOnlyGrow(grants);
    }

    /**
     * One run: the leader ({@code leaderCut}) or a follower cut off, a holder pinned to it, a rival on the other two.
     * Adds every grant made to {@code grants}.
     */
    private Run run(FencedTable table, int run, boolean leaderCut, List<long[]> grants) throws Exception {
        EtcdMember leader = cluster.awaitLeader(RECOVERY);
        EtcdMember cutOff = leaderCut ? leader : cluster.follower(leader);
        String[] majority = cluster.members().stream()
                .filter(m -> m != cutOff)
                .map(EtcdMember::clientUrl)
                .toArray(String[]::new);
        String what = (leaderCut ? "leader " : "follower ") + cutOff.name() + " cut off (run " + (run + 1) + ")";
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        try (Client pinnedClient =
                        Client.builder().endpoints(cutOff.clientUrl()).build();
                Client majorityClient = Client.builder().endpoints(majority).build()) {
            Recorder pinnedStore = new Recorder(new EtcdLeaseStore(pinnedClient, PREFIX));
            Recorder majorityStore = new Recorder(new EtcdLeaseStore(majorityClient, PREFIX));
            try (LeaseManager holder = manager(pinnedStore, "pinned-" + run);
                    LeaseManager rival = manager(majorityStore, "rival")) {
                // each client's first call starts it (vert.x, a connection): not within a store timeout on a busy
                // machine
                firstGrant(holder, "warm-" + run, System.nanoTime(), 1);
                firstGrant(rival, "warm-rival-" + run, System.nanoTime(), 1);
                AtomicLong lostAt = new AtomicLong();
                CountDownLatch lost = new CountDownLatch(1);
                long amount = 10L * run;
                Lease lease = holderThread
                        .submit(() -> {
                            Lease l = holder.acquire(NAME, TTL, RECOVERY);
                            table.write(amount + 1);
                            l.onLost(x -> {
                                lostAt.set(System.nanoTime());
                                lost.countDown();
                            });
                            return l;
                        })
                        .get();

                List<String> violations = new CopyOnWriteArrayList<>();
                Thread watcher = new Thread(() -> watch(lease, pinnedStore, violations), "deadline-watcher");
                watcher.start();
                long cutAt;
                long backAt;
                long takenAt;
                long healedAt;
                try (LoopbackCut cut = cluster.partition(cutOff)) {
                    cutAt = System.nanoTime();
                    backAt = firstGrant(rival, "probe-" + run, cutAt, 3);
                    if (leaderCut) {
                        assertNotNull(cluster.awaitLeader(RECOVERY, m -> m != cutOff), "the majority elects a leader");
                    }
                    Lease taken = rival.acquire(NAME, TTL, RECOVERY); // binds its token to this thread
                    takenAt = System.nanoTime();
                    assertFalse(lease.isValid(), "the cut-off holder's lease is no longer valid when the rival has it");
                    assertTrue(taken.token() > lease.token(), taken.token() + " after " + lease.token());
                    assertTrue(lost.await(RECOVERY.toSeconds(), TimeUnit.SECONDS), "the cut-off holder was told");
                    table.write(amount + 2);
                    taken.close();

                    Throwable late = holderThread
                            .submit(() -> {
                                try {
                                    table.write(amount + 3);
                                    return null;
                                } catch (SQLException e) {
                                    return e;
                                }
                            })
                            .get();
                    assertNotNull(late, "the cut-off holder's write is refused");
                    assertThrows(StaleTokenException.class, () -> table.writeUnder(lease.token(), amount + 4));
                    assertEquals(amount + 2, table.amount());
                } finally {
                    watcher.join(RECOVERY.toMillis());
                }
                healedAt = System.nanoTime();
                long rejoinedAt = firstGrant(holder, "rejoined-" + run, healedAt, 1);
                assertTrue(violations.isEmpty(), what + ": " + violations);
                grants.addAll(pinnedStore.grants());
                grants.addAll(majorityStore.grants());
                return new Run(
                        what,
                        ms(backAt - cutAt),
                        ms(lostAt.get() - pinnedStore.ackedSend(lease.token())),
                        ms(takenAt - cutAt),
                        ms(rejoinedAt - healedAt));
            }
        } finally {
            holderThread.shutdownNow();
        }
    }

    private static LeaseManager manager(Recorder store, String holder) {
        return LeaseManager.builder(store)
                .holder(holder)
                .storeTimeout(STORE_TIMEOUT)
                .build();
    }

    /**
     * Every 20 ms until the lease is lost: if it is valid, the deadline its last acknowledged call gives has not
     * passed.
     */
    private static void watch(Lease lease, Recorder store, List<String> violations) {
        long giveUp = System.nanoTime() + RECOVERY.toNanos();
        try {
            while (lease.isValid() && System.nanoTime() - giveUp < 0) {
                long overdue = System.nanoTime() - (store.ackedSend(lease.token()) + TTL.toNanos());
                if (overdue >= 0 && lease.isValid()) {
                    violations.add("lease " + lease.token() + " valid " + ms(overdue) + " ms past its deadline");
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(20); // polling the lease's state, with a deadline
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Tries fresh names ({@code name-1}, ...) through {@code manager} until {@code count} grants sent after
     * {@code from} succeeded ({@link #RECOVERY} at most); returns when the first one was answered.
     */
    private static long firstGrant(LeaseManager manager, String name, long from, int count) throws Exception {
        long deadline = from + RECOVERY.toNanos();
        long first = 0;
        int granted = 0;
        for (int attempt = 1; granted < count; attempt++) {
            try {
                Optional<Lease> got = manager.tryAcquire(name + "-" + attempt, TTL);
                if (got.isPresent()) {
                    if (granted++ == 0) {
                        first = System.nanoTime();
                    }
                    got.get().close();
                    continue;
                }
            } catch (SQLException e) {
                // no leader on this side (yet): the store did not answer in time
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no grant through " + name + " within " + RECOVERY);
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the cluster until it serves again, with a deadline
        }
        return first;
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
