package dev.fenced.lease.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.fenced.it.support.ForwardingLeaseStore;
import dev.fenced.spi.LeaseStore;
import dev.fenced.spi.PostgresLeaseStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The contract can fail: stores that break it (one repeats tokens, one grants a held name again) are run through the
 * contract's own tests with the JUnit Platform launcher, and the tests that guard what they break fail, while the
 * same tests pass for the real store.
 */
class BrokenStoresFailTheContractTest {

    /** The tests each broken store must fail: the ones guarding what it breaks. */
    private static final List<String> TOKEN_ORDER = List.of("tokensGrowAcrossNamesReleasesAndRestarts");

    private static final List<String> EXCLUSIVITY =
            List.of("aHeldNameIsNotGrantedToAnotherHolder", "racingGrantsGrantOnce");

    @Test
    void theRealStorePassesTheseTests() {
        assertEquals(Set.of(), failed(PostgresContract.class, List.of(TOKEN_ORDER, EXCLUSIVITY)));
    }

    @Test
    void aStoreThatRepeatsTokensFails() {
        assertEquals(new TreeSet<>(TOKEN_ORDER), failed(RepeatsTokens.class, List.of(TOKEN_ORDER)));
    }

    @Test
    void aStoreThatGrantsAHeldNameAgainFails() {
        assertEquals(new TreeSet<>(EXCLUSIVITY), failed(GrantsTwice.class, List.of(EXCLUSIVITY)));
    }

    private static Set<String> failed(Class<? extends LeaseStoreContract> contract, List<List<String>> groups) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (List<String> group : groups) {
            for (String method : group) {
                request.selectors(selectMethod(contract, method));
            }
        }
        LauncherDiscoveryRequest r = request.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(r, listener);
        TestExecutionSummary summary = listener.getSummary();
        Set<String> failed = new TreeSet<>();
        for (TestExecutionSummary.Failure f : summary.getFailures()) {
            failed.add(f.getTestIdentifier().getDisplayName().replace("()", ""));
        }
        assertEquals(
                groups.stream().mapToLong(List::size).sum(), summary.getTestsFoundCount(), "every selected test ran");
        return failed;
    }

    /** The real store, run through the launcher like the broken ones. */
    static class PostgresContract extends LeaseStoreContract {
        @Override
        protected LeaseStore createStore() {
            return PostgresLeaseStore.create(PostgresLeaseStoreContractTest.dataSource());
        }
    }

    /** Answers every grant with the first token it ever granted. */
    static class RepeatsTokens extends LeaseStoreContract {
        private static final AtomicLong FIRST = new AtomicLong();

        @Override
        protected LeaseStore createStore() {
            return new ForwardingLeaseStore(PostgresLeaseStore.create(PostgresLeaseStoreContractTest.dataSource())) {
                @Override
                public Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
                    Grant g = delegate.grant(name, holder, ttl, timeout);
                    if (g == null) {
                        return null;
                    }
                    FIRST.compareAndSet(0, g.token());
                    return new Grant(FIRST.get());
                }

                @Override
                public int release(String holder, List<Held> leases, Duration timeout) {
                    return leases.size(); // the real tokens are unknown here: released leases just expire
                }
            };
        }
    }

    /** Grants a held name anyway, with a made-up (growing) token. */
    static class GrantsTwice extends LeaseStoreContract {
        private static final AtomicLong MADE_UP = new AtomicLong(Long.MAX_VALUE / 2);

        @Override
        protected LeaseStore createStore() {
            return new ForwardingLeaseStore(PostgresLeaseStore.create(PostgresLeaseStoreContractTest.dataSource())) {
                @Override
                public Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
                    Grant g = delegate.grant(name, holder, ttl, timeout);
                    return g != null ? g : new Grant(MADE_UP.incrementAndGet());
                }
            };
        }
    }
}
