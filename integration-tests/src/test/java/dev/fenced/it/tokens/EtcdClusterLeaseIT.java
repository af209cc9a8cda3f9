package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.EtcdCluster;
import dev.fenced.it.support.EtcdMember;
import dev.fenced.it.support.ForwardingLeaseStore;
import dev.fenced.it.support.TcpProxy;
import dev.fenced.lease.etcd.EtcdLeaseStore;
import dev.fenced.spi.LeaseStore;
import io.etcd.jetcd.Client;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases from the etcd store over a real three-member etcd cluster on loopback, while the leader is SIGKILLed
 * mid-lease, restarted on its data directory, and then a follower is SIGKILLed. A holder holds and renews one lease
 * throughout; a rival tries to take it all along. Checked: every token granted is greater than every earlier one;
 * the rival is never granted the name while the holder's lease is valid; the holder's lease is never valid past the
 * deadline its last acknowledged grant or renewal gives (send time + ttl), so it is either kept or lost by its own
 * deadline; a holder whose lease expired (a paused one) is refused by PostgreSQL. Printed: the time from each fault
 * to the first grant or renewal sent after it that succeeded (unavailability). A client cut off from the cluster is
 * the second test; a member cut off from its peers is {@link EtcdMemberPartitionIT}.
 */
class EtcdClusterLeaseIT {

    static final String NAME = "totals-job";
    static final Duration TTL = Duration.ofSeconds(3);
    static final Duration RECOVERY = Duration.ofSeconds(15);

    EtcdCluster cluster;
    Client client;
    Recorder store;
    LeaseManager holder;
    LeaseManager rival;

    @BeforeEach
    void start() throws Exception {
        Services.require(
                EtcdCluster.binaryPresent(),
                "etcd is not installed (apt-get install -y etcd-server): the etcd cluster cannot be tested");
        cluster = EtcdCluster.start("fenced-it", 3);
        client = Client.builder().endpoints(cluster.clientUrls()).build();
        store = new Recorder(new EtcdLeaseStore(client, "fenced/leases/"));
        holder = LeaseManager.builder(store)
                .holder("holder")
                .storeTimeout(Duration.ofSeconds(1))
                .build();
        rival = LeaseManager.builder(store)
                .holder("rival")
                .storeTimeout(Duration.ofSeconds(1))
                .build();
    }

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            holder.close();
        }
        if (rival != null) {
            rival.close();
        }
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void tokensOnlyGrowAndNoLeaseOutlivesItsDeadlineWhileTheLeaderDiesAndMembersRestart() throws Exception {
        FencedTable table = FencedTable.create(EtcdLeaseStore.DOMAIN);

        // a holder that will pause: granted for 2 s through the store directly, never renewed
        LeaseStore.Grant paused = store.grant(NAME, "paused", Duration.ofSeconds(2), Duration.ofSeconds(5));
        assertNotNull(paused, "the name is free at first");

        AtomicReference<Lease> held = new AtomicReference<>(holder.acquire(NAME, TTL, RECOVERY));
        table.write(1); // under the holder's token, bound to this thread

        List<String> violations = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread rivalThread = new Thread(() -> contend(held, violations, done), "rival");
        rivalThread.start();

        List<String> report = new ArrayList<>();
        try {
            report.add(fault("steady state", () -> {}, held, violations));
            EtcdMember leader = cluster.awaitLeader(RECOVERY);
            report.add(fault("leader " + leader.name() + " SIGKILLed", leader::kill, held, violations));
            report.add(
                    fault("leader " + leader.name() + " restarted", () -> cluster.restart(leader), held, violations));
            EtcdMember follower = cluster.follower(cluster.awaitLeader(RECOVERY));
            report.add(fault("follower " + follower.name() + " SIGKILLed", follower::kill, held, violations));
        } finally {
            done.countDown();
            rivalThread.join(TimeUnit.SECONDS.toMillis(10));
        }
        report.forEach(line -> System.out.println("etcd cluster: " + line));

        assertTrue(violations.isEmpty(), "violations: " + violations);
        assertTokensOnlyGrow(store.grants());
        assertTrue(held.get().isValid(), "the holder holds the lease at the end");
        table.write(2);
        assertEquals(2, table.amount());

        // the paused holder wakes up and writes under its old token: PostgreSQL refuses it
        assertThrows(StaleTokenException.class, () -> table.writeUnder(paused.token(), 99));
        assertEquals(2, table.amount());
        assertEquals(held.get().token(), table.lastToken());
    }

    /**
     * The holder partitioned from the whole cluster (its client reaches the members through {@link TcpProxy}s that
     * are then cut into black holes): it is told its lease is lost, the rival gets the name only once the holder's
     * lease is no longer valid, with a greater token, and the holder's writes are refused (by the driver, its token
     * poisoned; by PostgreSQL, a write under its old token). Printed: when it was lost, counted from the send time of
     * its last acknowledged call (its deadline is that plus the ttl, less the drift margin).
     */
    @Test
    void aPartitionedHolderLosesItsLeaseByItsOwnDeadline() throws Exception {
        FencedTable table = FencedTable.create(EtcdLeaseStore.DOMAIN);
        List<TcpProxy> proxies = new ArrayList<>();
        for (String url : cluster.clientUrls()) {
            proxies.add(TcpProxy.start(url));
        }
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        Client partitionedClient = Client.builder()
                .endpoints(proxies.stream().map(TcpProxy::url).toArray(String[]::new))
                .build();
        Recorder partitionedStore = new Recorder(new EtcdLeaseStore(partitionedClient, "fenced/leases/"));
        try (partitionedClient;
                LeaseManager partitioned = LeaseManager.builder(partitionedStore)
                        .holder("partitioned")
                        .storeTimeout(Duration.ofSeconds(1))
                        .build()) {
            AtomicReference<Long> lostAt = new AtomicReference<>();
            CountDownLatch lost = new CountDownLatch(1);
            Lease lease = holderThread
                    .submit(() -> {
                        Lease l = partitioned.acquire(NAME, TTL, RECOVERY);
                        table.write(1);
                        l.onLost(x -> {
                            lostAt.set(System.nanoTime());
                            lost.countDown();
                        });
                        return l;
                    })
                    .get();
            long cutAt = System.nanoTime();
            proxies.forEach(TcpProxy::cut);

            // the rival, on its own client, waits for the name; the partitioned holder's lease must be invalid by then
            Lease taken = rival.acquire(NAME, TTL, RECOVERY);
            long takenAt = System.nanoTime();
            assertTrue(!lease.isValid(), "the partitioned holder's lease is no longer valid when the rival has it");
            assertTrue(taken.token() > lease.token(), taken.token() + " after " + lease.token());
            assertTrue(lost.await(RECOVERY.toSeconds(), TimeUnit.SECONDS), "the partitioned holder was told");
            table.write(2); // the rival, on this thread
            taken.close();

            Throwable late = holderThread
                    .submit(() -> {
                        try {
                            table.write(3);
                            return null;
                        } catch (SQLException e) {
                            return e;
                        }
                    })
                    .get();
            assertNotNull(late, "the partitioned holder's write is refused");
            assertThrows(StaleTokenException.class, () -> table.writeUnder(lease.token(), 4));
            assertEquals(2, table.amount());
            long acked = partitionedStore.ackedSend(lease.token());
            System.out.printf(
                    "etcd cluster: partitioned holder: its last acknowledged call sent %d ms before the cut, lost %d ms "
                            + "after that call (ttl %d ms), rival granted %d ms after the cut; holder's write: %s%n",
                    TimeUnit.NANOSECONDS.toMillis(cutAt - acked),
                    TimeUnit.NANOSECONDS.toMillis(lostAt.get() - acked),
                    TTL.toMillis(),
                    TimeUnit.NANOSECONDS.toMillis(takenAt - cutAt),
                    late);
        } finally {
            holderThread.shutdownNow();
            for (TcpProxy p : proxies) {
                p.close();
            }
        }
    }

    /**
     * Linearizable tokens: a grant sent after another one was answered has a greater token; no token twice. (Grants
     * in flight together may be answered in either order.)
     */
    static void assertTokensOnlyGrow(List<long[]> grants) {
        assertTrue(grants.size() > 10, "grants throughout the run: " + grants.size());
        for (long[] earlier : grants) {
            for (long[] later : grants) {
                if (later != earlier) {
                    assertTrue(later[2] != earlier[2], "token " + later[2] + " granted twice");
                }
                if (later[0] - earlier[1] > 0) {
                    assertTrue(
                            later[2] > earlier[2],
                            "token " + later[2] + " granted after token " + earlier[2] + " was, and not above it");
                }
            }
        }
        System.out.println("etcd cluster: " + grants.size() + " grants, tokens " + grants.get(0)[2] + " to "
                + grants.get(grants.size() - 1)[2] + ", none repeated or going backwards");
    }

    /**
     * Runs {@code fault}, then watches the holder's lease until a store call sent after the fault was answered, the
     * rival was granted its own name 3 times since, and the holder's lease was renewed (or granted again, if it was
     * lost: the holder reacquires it) by a call sent after the fault. Every 20 ms: if the lease is valid, its
     * deadline by the last acknowledged call has not passed.
     */
    String fault(String what, Fault fault, AtomicReference<Lease> held, List<String> violations) throws Exception {
        long before = held.get().token();
        long at = System.nanoTime();
        fault.run();
        long faultDone = System.nanoTime();
        long deadline = faultDone + RECOVERY.toNanos();
        boolean lost = false;
        while (true) {
            long now = System.nanoTime();
            Lease lease = held.get();
            if (lease.isValid()) {
                long acked = store.ackedSend(lease.token());
                if (now - (acked + TTL.toNanos()) >= 0) {
                    violations.add(what + ": lease " + lease.token() + " valid "
                            + TimeUnit.NANOSECONDS.toMillis(now - acked) + " ms after its last acknowledged call");
                }
            } else {
                lost = true;
                held.set(holder.acquire(NAME, TTL, RECOVERY)); // binds the new token to this thread
                continue;
            }
            Optional<Long> recovered = store.firstAnswerSentAfter(faultDone);
            if (recovered.isPresent()
                    && store.grantsSentAfter(faultDone) >= 3
                    && store.ackedSend(held.get().token()) - faultDone > 0) {
                return String.format(
                        "%s (took %d ms): first store call sent after it answered %d ms after the fault, %d calls "
                                + "failed before; lease %s (token %d -> %d)",
                        what,
                        TimeUnit.NANOSECONDS.toMillis(faultDone - at),
                        TimeUnit.NANOSECONDS.toMillis(recovered.get() - at),
                        store.failuresBetween(at, recovered.get()),
                        lost ? "lost and taken again" : "kept",
                        before,
                        held.get().token());
            }
            if (now - deadline > 0) {
                throw new AssertionError(what + ": no grant or renewal succeeded within " + RECOVERY);
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the lease's state, with a deadline
        }
    }

    /**
     * The rival: every 100 ms until {@code done}, tries the holder's name (never granted while the holder's lease is
     * valid) and takes and releases a name of its own (a fresh token each time).
     */
    void contend(AtomicReference<Lease> held, List<String> violations, CountDownLatch done) {
        try {
            while (!done.await(100, TimeUnit.MILLISECONDS)) {
                try {
                    Optional<Lease> got = rival.tryAcquire(NAME, TTL);
                    if (got.isPresent()) {
                        if (held.get().isValid()) {
                            violations.add("rival granted token " + got.get().token() + " while the holder's "
                                    + held.get().token() + " was valid");
                        }
                        got.get().close(); // and let the holder have it back
                    }
                    rival.tryAcquire(NAME + "-rival", TTL).ifPresent(Lease::close);
                } catch (SQLException e) {
                    System.out.println("etcd cluster: rival: " + e); // the store did not answer (no leader yet)
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    interface Fault {
        void run() throws Exception;
    }

    /**
     * The etcd store, recording each grant (send time, answer time, token), the send time of each lease's last
     * acknowledged grant or renewal, the send and answer times of each call answered, and those of each call failed.
     */
    static final class Recorder extends ForwardingLeaseStore {

        private final List<long[]> grants = new CopyOnWriteArrayList<>();
        private final Map<Long, Long> ackedSend = new ConcurrentHashMap<>();
        private final List<long[]> answered = new CopyOnWriteArrayList<>();
        private final List<long[]> failed = new CopyOnWriteArrayList<>();

        Recorder(LeaseStore delegate) {
            super(delegate);
        }

        @Override
        public Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
            long sent = System.nanoTime();
            Grant grant;
            try {
                grant = delegate.grant(name, holder, ttl, timeout);
            } catch (Exception e) {
                failed.add(new long[] {sent, System.nanoTime()});
                throw e;
            }
            long now = System.nanoTime();
            if (grant != null) {
                grants.add(new long[] {sent, now, grant.token()});
                ackedSend.merge(grant.token(), sent, Math::max);
            }
            answered.add(new long[] {sent, now});
            return grant;
        }

        @Override
        public Renewal renew(String holder, List<Held> leases, Duration timeout) throws Exception {
            long sent = System.nanoTime();
            Renewal renewal;
            try {
                renewal = delegate.renew(holder, leases, timeout);
            } catch (Exception e) {
                failed.add(new long[] {sent, System.nanoTime()});
                throw e;
            }
            renewal.renewed().forEach(token -> ackedSend.merge(token, sent, Math::max));
            answered.add(new long[] {sent, System.nanoTime()});
            return renewal;
        }

        /** Every grant: {send, answer, token}, in the order answered. */
        List<long[]> grants() {
            return List.copyOf(grants);
        }

        long ackedSend(long token) {
            Long sent = ackedSend.get(token);
            if (sent == null) {
                throw new IllegalStateException("token " + token + " was never acknowledged");
            }
            return sent;
        }

        /** When the first call sent after {@code nanos} was answered (a grant, granted or not, or a renewal). */
        Optional<Long> firstAnswerSentAfter(long nanos) {
            return answered.stream()
                    .filter(s -> s[0] - nanos > 0)
                    .map(s -> s[1])
                    .findFirst();
        }

        /** How many grants sent after {@code nanos} were answered. */
        long grantsSentAfter(long nanos) {
            return grants.stream().filter(g -> g[0] - nanos > 0).count();
        }

        /** How many calls sent after {@code from} and before {@code to} failed. */
        long failuresBetween(long from, long to) {
            return failed.stream()
                    .filter(s -> s[0] - from >= 0 && to - s[0] > 0)
                    .count();
        }
    }
}
