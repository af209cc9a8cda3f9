package dev.fenced.internal.lease;

import dev.fenced.Ticker;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.context.TokenDomains;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * A store of the SPI ({@link dev.fenced.spi.LeaseStore}) as the manager uses it: every call is a
 * {@link BoundedCalls bounded call}, whatever the store does (a client that never answers, a lock it waits on). A
 * call that overruns is abandoned (its worker interrupted) and the caller gets an
 * {@link java.sql.SQLTimeoutException}; a grant that still answers within as long again is released on its worker,
 * since nobody holds or renews it. The send time of a grant or renewal (from which the holder's deadline counts) is
 * read before the call is handed to the worker: the store can only have received it later.
 */
final class BoundedStore implements StoreAccess {

    private final dev.fenced.spi.LeaseStore store;
    private final String domain;
    private final BoundedCalls calls;

    BoundedStore(dev.fenced.spi.LeaseStore store, FencedThreads threads, String threadSuffix) {
        this.store = store;
        this.domain = TokenDomains.check(store.tokenDomain());
        this.calls = new BoundedCalls(threads, "fenced-lease-io-" + threadSuffix, domain, null);
    }

    @Override
    public String tokenDomain() {
        return domain;
    }

    @Override
    public LeaseStore.@Nullable Grant grant(
            String name, String holder, long ttlMillis, long budgetNanos, Ticker sentClock) throws SQLException {
        long sentAt = sentClock.read();
        Duration ttl = Duration.ofMillis(ttlMillis);
        Duration timeout = Duration.ofNanos(budgetNanos);
        dev.fenced.spi.LeaseStore.@Nullable Grant g = call(
                "grant lease '" + name + "'",
                budgetNanos,
                () -> checkedGrant(store.grant(name, holder, ttl, timeout)),
                late -> store.release(
                        holder, List.of(new dev.fenced.spi.LeaseStore.Held(name, late.token(), ttl)), timeout));
        return g == null ? null : new LeaseStore.Grant(g.token(), sentAt);
    }

    private static dev.fenced.spi.LeaseStore.@Nullable Grant checkedGrant(dev.fenced.spi.LeaseStore.@Nullable Grant g) {
        if (g != null && g.token() <= 0) {
            throw new IllegalStateException("the store granted token " + g.token() + ": tokens are positive");
        }
        return g;
    }

    @Override
    public LeaseStore.Renewal renew(
            String holder, String[] names, long[] tokens, long[] ttlMillis, long budgetNanos, Ticker sentClock)
            throws SQLException {
        long sentAt = sentClock.read();
        List<dev.fenced.spi.LeaseStore.Held> held = held(names, tokens, ttlMillis);
        dev.fenced.spi.LeaseStore.Renewal r = call(
                "renew " + names.length + " leases",
                budgetNanos,
                () -> store.renew(holder, held, Duration.ofNanos(budgetNanos)),
                null);
        return new LeaseStore.Renewal(new HashSet<>(r.renewed()), new HashSet<>(r.busy()), sentAt);
    }

    @Override
    public int release(String holder, String[] names, long[] tokens, long budgetNanos) throws SQLException {
        List<dev.fenced.spi.LeaseStore.Held> held = held(names, tokens, new long[names.length]);
        return call(
                "release " + names.length + " leases",
                budgetNanos,
                () -> store.release(holder, held, Duration.ofNanos(budgetNanos)),
                null);
    }

    /**
     * A store of the SPI has no "keep it taken until" of its own: the lease is renewed for {@code holdMillis} from
     * now and then simply runs out (released at once when that is 0).
     */
    @Override
    public boolean releaseHolding(String holder, String name, long token, long holdMillis, long budgetNanos)
            throws SQLException {
        if (holdMillis <= 0) {
            return release(holder, new String[] {name}, new long[] {token}, budgetNanos) > 0;
        }
        LeaseStore.Renewal r = renew(
                holder, new String[] {name}, new long[] {token}, new long[] {holdMillis}, budgetNanos, Ticker.system());
        return r.renewed().contains(token);
    }

    @Override
    public LeaseStore.@Nullable Holder describe(String name, long budgetNanos) throws SQLException {
        return call(
                        "describe lease '" + name + "'",
                        budgetNanos,
                        () -> store.describe(name, Duration.ofNanos(budgetNanos)),
                        null)
                .map(h -> new LeaseStore.Holder(h.holder(), h.token(), h.expiresAt(), h.live()))
                .orElse(null);
    }

    @Override
    public @Nullable String check(long budgetNanos) throws SQLException {
        return call("check the lease store", budgetNanos, () -> store.check(Duration.ofNanos(budgetNanos)), null)
                .orElse(null);
    }

    @Override
    public int timeouts() {
        return calls.timeouts();
    }

    @Override
    public Future<?> inBackground(Runnable work) {
        return calls.submit(work);
    }

    private static List<dev.fenced.spi.LeaseStore.Held> held(String[] names, long[] tokens, long[] ttlMillis) {
        List<dev.fenced.spi.LeaseStore.Held> held = new ArrayList<>(names.length);
        for (int i = 0; i < names.length; i++) {
            held.add(new dev.fenced.spi.LeaseStore.Held(names[i], tokens[i], Duration.ofMillis(ttlMillis[i])));
        }
        return List.copyOf(held);
    }

    /** What to do with an answer that came after its caller gave up. */
    private interface Late<T> {
        void arrived(T result) throws Exception;
    }

    private <T> T call(String what, long budgetNanos, Callable<T> work, @Nullable Late<T> late) throws SQLException {
        return calls.run(
                what,
                budgetNanos,
                call -> {
                    T result = work.call();
                    if (late != null && result != null && call.abandoned()) {
                        // The caller was told the call timed out: it must not take effect unseen.
                        late.arrived(result);
                    }
                    return result;
                },
                late != null);
    }
}
