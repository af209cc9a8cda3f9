package dev.fenced.lease.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.spi.LeaseStore;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LeaseStore} must do, as tests: extend this class, make a store on your backend in
 * {@link #createStore()}, and run it (ShedLock's {@code AbstractLockProviderIntegrationTest} is the model). Each test
 * uses lease names of its own, so one backend serves them all.
 *
 * <p>Checked: one holder per name (also when grants race); tokens strictly growing across names, releases, expiries
 * and a new store instance on the same backend (a restart); expiry by the store's own clock, never before the ttl and
 * never revived by a renewal; renewal keeping a lease beyond its ttl; a lease taken behind its holder's back lost by
 * the manager; a crashed holder's lease taken over after its ttl with a newer token; every manager operation
 * bounded in time when the store stalls. Waits are for time to pass (a ttl), never for a result to appear by luck.
 */
public abstract class LeaseStoreContract {

    /**
     * A new store instance on the test's backend, each call a new one (as after a restart of the application). The
     * contract closes it after the test.
     */
    protected abstract LeaseStore createStore() throws Exception;

    /**
     * The ttl of leases the tests let expire. Stores whose ttls have a coarse grain (etcd counts whole seconds and has
     * a minimum) may need more; the tests wait a few of them.
     */
    protected Duration shortTtl() {
        return Duration.ofMillis(1500);
    }

    /** How long a lease that must not expire during a test lives. */
    protected Duration longTtl() {
        return Duration.ofSeconds(60);
    }

    /** The store timeout of the managers the tests build. */
    protected Duration storeTimeout() {
        return Duration.ofSeconds(5);
    }

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "-";

    @AfterEach
    public void closeEverything() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    /** A store of this test, closed after it. */
    protected final LeaseStore store() throws Exception {
        LeaseStore store = createStore();
        toClose.add(store);
        return store;
    }

    /** A manager on {@code store}, closed after the test (before its store). */
    protected final LeaseManager manager(LeaseStore store) {
        LeaseManager m =
                LeaseManager.builder(store).storeTimeout(storeTimeout()).build();
        toClose.add(m);
        return m;
    }

    /** A lease name of this test's own. */
    protected final String name(String what) {
        return prefix + what;
    }

    private Duration timeout() {
        return storeTimeout();
    }

    private static LeaseStore.Held held(String name, long token, Duration ttl) {
        return new LeaseStore.Held(name, token, ttl);
    }

    @Test
    public void theTokenDomainIsAValidName() throws Exception {
        String domain = store().tokenDomain();
        assertTrue(domain.matches("[a-z0-9][a-z0-9._:-]{0,62}"), "token domain '" + domain + "'");
    }

    @Test
    public void aHeldNameIsNotGrantedToAnotherHolder() throws Exception {
        LeaseStore one = store();
        LeaseStore two = store();
        String name = name("exclusive");
        LeaseStore.Grant first = one.grant(name, "holder-a", longTtl(), timeout());
        assertNotNull(first, "a free name is granted");
        assertTrue(first.token() > 0, "tokens are positive, got " + first.token());
        assertNull(two.grant(name, "holder-b", longTtl(), timeout()), "a held name is not granted to another holder");
        assertNull(one.grant(name, "holder-b", longTtl(), timeout()), "nor through the first store");
        assertNull(one.grant(name, "holder-a", longTtl(), timeout()), "nor again to its own holder");

        LeaseManager a = manager(one);
        LeaseManager b = manager(two);
        String managed = name("exclusive-managed");
        try (Lease lease = a.tryAcquire(managed, longTtl()).orElseThrow()) {
            assertTrue(lease.isValid());
            assertEquals(Optional.empty(), b.tryAcquire(managed, longTtl()), "a second manager gets nothing");
        }
    }

    @Test
    public void racingGrantsGrantOnce() throws Exception {
        int racers = 8;
        List<LeaseStore> stores = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            stores.add(store());
        }
        String name = name("race");
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            List<Future<LeaseStore.Grant>> grants = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                LeaseStore s = stores.get(i);
                String holder = "racer-" + i;
                grants.add(pool.submit(() -> {
                    start.await();
                    return s.grant(name, holder, longTtl(), timeout());
                }));
            }
            start.countDown();
            int granted = 0;
            for (Future<LeaseStore.Grant> g : grants) {
                if (g.get(30, TimeUnit.SECONDS) != null) {
                    granted++;
                }
            }
            assertEquals(1, granted, "exactly one of " + racers + " racing grants of one name is granted");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    public void tokensGrowAcrossNamesReleasesAndRestarts() throws Exception {
        long last = 0;
        for (int round = 0; round < 3; round++) {
            LeaseStore store = store(); // each round a new instance on the same backend: a restart
            for (int i = 0; i < 6; i++) {
                String name = name("order-" + (i % 3));
                String holder = "holder-" + round + "-" + i;
                LeaseStore.Grant g = store.grant(name, holder, longTtl(), timeout());
                assertNotNull(g, "a released name is granted at once (" + name + ")");
                assertTrue(g.token() > last, "token " + g.token() + " after " + last + ": tokens strictly grow");
                last = g.token();
                assertEquals(1, store.release(holder, List.of(held(name, g.token(), longTtl())), timeout()));
            }
        }
        LeaseManager m = manager(store());
        for (int i = 0; i < 4; i++) {
            try (Lease lease = m.tryAcquire(name("order-managed"), longTtl()).orElseThrow()) {
                assertTrue(lease.token() > last, "token " + lease.token() + " after " + last);
                last = lease.token();
            }
        }
    }

    @Test
    public void aReleaseByAnotherHolderOrOfAnOldTokenChangesNothing() throws Exception {
        LeaseStore store = store();
        String name = name("foreign-release");
        LeaseStore.Grant g = store.grant(name, "owner", longTtl(), timeout());
        assertNotNull(g);
        assertEquals(0, store.release("intruder", List.of(held(name, g.token(), longTtl())), timeout()));
        assertEquals(0, store.release("owner", List.of(held(name, g.token() - 1, longTtl())), timeout()));
        assertNull(store.grant(name, "intruder", longTtl(), timeout()), "still the owner's");
        LeaseStore.Holder h = store.describe(name, timeout()).orElseThrow();
        assertEquals("owner", h.holder());
        assertEquals(g.token(), h.token());
        assertTrue(h.live());
    }

    @Test
    public void aLeaseExpiresByTheStoresClockNeverBeforeItsTtlAndIsNotRevived() throws Exception {
        LeaseStore store = store();
        String name = name("expiry");
        Duration ttl = shortTtl();
        long sent = System.nanoTime();
        LeaseStore.Grant first = store.grant(name, "sleeper", ttl, timeout());
        assertNotNull(first);
        LeaseStore.Grant second = null;
        long deadline = sent + ttl.toNanos() * 6 + TimeUnit.SECONDS.toNanos(5);
        while (second == null && System.nanoTime() < deadline) {
            second = store.grant(name, "waker", ttl, timeout());
            if (second == null) {
                TimeUnit.MILLISECONDS.sleep(50); // polling for the ttl to pass, as LeaseManager.acquire does
            }
        }
        long took = System.nanoTime() - sent;
        assertNotNull(second, "an expired lease goes to the next caller");
        assertTrue(
                took >= ttl.toNanos(),
                "expired after " + TimeUnit.NANOSECONDS.toMillis(took) + " ms, before its ttl of " + ttl.toMillis());
        assertTrue(second.token() > first.token(), "the next holder has a newer token");
        LeaseStore.Renewal r = store.renew("sleeper", List.of(held(name, first.token(), ttl)), timeout());
        assertFalse(r.renewed().contains(first.token()), "an expired lease is not revived by its old holder");
        assertFalse(r.busy().contains(first.token()), "nor said to be still its holder's");
        assertEquals("waker", store.describe(name, timeout()).orElseThrow().holder());
    }

    @Test
    public void aNewStoreInstanceSeesTheLeasesOfTheOldOne() throws Exception {
        LeaseStore before = createStore();
        String name = name("restart");
        LeaseStore.Grant g = before.grant(name, "survivor", longTtl(), timeout());
        assertNotNull(g);
        before.close(); // the application restarts without releasing

        LeaseStore after = store();
        assertNull(after.grant(name, "newcomer", longTtl(), timeout()), "still held after the restart");
        LeaseStore.Renewal r = after.renew("survivor", List.of(held(name, g.token(), longTtl())), timeout());
        assertTrue(r.renewed().contains(g.token()), "its holder renews it through the new instance");
        assertEquals(1, after.release("survivor", List.of(held(name, g.token(), longTtl())), timeout()));
        LeaseStore.Grant next = after.grant(name, "newcomer", longTtl(), timeout());
        assertNotNull(next, "released through the new instance, granted at once");
        assertTrue(next.token() > g.token());
    }

    @Test
    public void renewalKeepsALeaseBeyondItsTtl() throws Exception {
        LeaseManager holder = manager(store());
        LeaseManager other = manager(store());
        String name = name("renewal");
        Duration ttl = shortTtl();
        try (Lease lease = holder.tryAcquire(name, ttl).orElseThrow()) {
            TimeUnit.NANOSECONDS.sleep(ttl.toNanos() * 3); // three ttls pass: only renewal keeps it
            assertTrue(lease.isValid(), "renewed in the background, still held");
            assertEquals(Optional.empty(), other.tryAcquire(name, ttl), "and nobody else gets it");
        }
        try (Lease next = other.tryAcquire(name, ttl).orElseThrow()) {
            assertTrue(next.isValid(), "released at close, granted at once");
        }
    }

    @Test
    public void aLeaseTakenBehindItsHoldersBackIsLost() throws Exception {
        LeaseStore store = store();
        LeaseManager holder = manager(store);
        String name = name("loss");
        Duration ttl = shortTtl();
        Lease lease = holder.tryAcquire(name, ttl).orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(l -> lost.countDown());
        // someone removes it behind the holder's back and takes it
        assertEquals(1, store.release(holder.holder(), List.of(held(name, lease.token(), ttl)), timeout()));
        LeaseStore.Grant taken = store().grant(name, "usurper", longTtl(), timeout());
        assertNotNull(taken);
        assertTrue(
                lost.await(ttl.toNanos() * 2 + timeout().toNanos(), TimeUnit.NANOSECONDS),
                "the holder's next renewal finds it gone and loses it");
        assertFalse(lease.isValid());
        lease.close();
        assertEquals("usurper", store.describe(name, timeout()).orElseThrow().holder(), "closing it released nothing");
    }

    @Test
    public void aCrashedHoldersLeaseIsTakenOverAfterItsTtl() throws Exception {
        String name = name("takeover");
        Duration ttl = shortTtl();
        LeaseStore.Grant crashed = store().grant(name, "crashed", ttl, timeout()); // never renewed nor released
        assertNotNull(crashed);
        LeaseManager next = manager(store());
        assertEquals(Optional.empty(), next.tryAcquire(name, ttl), "busy until its ttl passes");
        try (Lease lease = next.acquire(name, ttl, ttl.multipliedBy(6).plusSeconds(5))) {
            assertTrue(lease.token() > crashed.token(), "taken over with a newer token");
        }
    }

    @Test
    public void everyOperationIsBoundedWhenTheStoreStalls() throws Exception {
        StallingStore stalling = new StallingStore(store());
        Duration budget = Duration.ofMillis(500);
        LeaseManager m = LeaseManager.builder(stalling).storeTimeout(budget).build();
        toClose.add(m);
        toClose.add(stalling::open); // let the stuck calls go at the end (closed before the manager: last in)
        String name = name("stall");
        Duration ttl = shortTtl();
        Lease lease = m.tryAcquire(name, ttl).orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(l -> lost.countDown());
        Lease kept = m.tryAcquire(name("stall-kept"), longTtl()).orElseThrow();

        stalling.stall();
        long bound = budget.toNanos() * 4 + TimeUnit.SECONDS.toNanos(2); // generous: a bound, not a measurement
        long start = System.nanoTime();
        assertThrows(SQLException.class, () -> m.tryAcquire(name("stall-other"), ttl), "a stalled grant fails");
        assertTrue(System.nanoTime() - start < bound, "a stalled grant returns within its budget");
        start = System.nanoTime();
        assertThrows(SQLException.class, () -> m.checkStore(), "a stalled check fails");
        assertTrue(System.nanoTime() - start < bound, "a stalled check returns within its budget");
        start = System.nanoTime();
        kept.close(); // its release stalls: it stays in the store until its ttl, the caller goes on
        assertFalse(kept.isValid());
        assertTrue(System.nanoTime() - start < bound, "a stalled release returns within its budget");
        assertTrue(
                lost.await(ttl.toNanos() + bound, TimeUnit.NANOSECONDS),
                "a lease whose renewals stall is lost by its deadline");
        assertFalse(lease.isValid());
        lease.close();
        assertTrue(stalling.stuck() > 0, "the store really stalled");
    }
}
