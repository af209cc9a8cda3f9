package dev.fenced.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link dev.fenced.LeaseManager} keeps its leases and draws its fencing tokens. The manager does the rest
 * (its own deadline per lease, renewal, loss, poisoning, callbacks, time budgets); a store only answers these calls.
 *
 * <p>What every store guarantees (checked by {@code LeaseStoreContract} in {@code fenced-lease-store-contract}):
 *
 * <ul>
 *   <li><b>Exclusive</b>: at most one holder has a name at any time, by the store's own clock: a grant succeeds only
 *       if the name is free, released, or expired.
 *   <li><b>Tokens strictly grow</b> across all names, releases, expiries, restarts of the application and of the
 *       store: no token is ever granted twice, and every grant's token exceeds every token granted before it
 *       (linearizably: a grant that starts after another one answered has a higher token). Tokens are positive.
 *   <li><b>Expiry is the store's call</b>: a lease that was neither renewed nor released within its ttl, counted by
 *       the store from no earlier than the moment the grant or renewal was received, may go to the next caller; a
 *       store never revives an expired lease on renewal. The manager counts its own deadline from when it
 *       <em>sent</em> the request, less a clock-drift margin, so it gives a lease up before the store does.
 *   <li><b>Answers may be late, never wrong</b>: every call may block; the manager bounds each one by its time budget
 *       whatever the store does (a call that overruns is abandoned on its worker thread, interrupted, and a grant that
 *       still arrives is released). The {@code timeout} argument is that budget, for the store's own I/O timeouts.
 * </ul>
 *
 * <p>Implementations are thread-safe. Any exception means "unknown": the manager retries renewals until the lease's
 * deadline, and reports a failed grant or release to its caller.
 */
public interface LeaseStore extends AutoCloseable {

    /**
     * The token domain of this store's tokens (1 to 63 lower-case letters, digits, {@code -} or {@code _}): each
     * protected table accepts the tokens of one domain ({@code fenced.tokenDomain}), since two counters' numbers say
     * nothing about each other. PostgreSQL's is {@link dev.fenced.Fencing#FENCED_DOMAIN}.
     */
    String tokenDomain();

    /**
     * Grants {@code name} to {@code holder} for {@code ttl} if nobody holds it (never granted, released, or expired by
     * the store's clock), with a token above every token this store granted before.
     *
     * @return the grant, or null if someone else holds the name
     */
    @Nullable
    Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception;

    /**
     * Renews every listed lease that is still {@code holder}'s grant (same name and token) and not expired, for its
     * ttl from now. A store whose leases keep the ttl they were granted with may ignore a different ttl.
     *
     * @return the tokens renewed, and those that are still the holder's but could not be renewed just now (retried
     *     soon); a token in neither set is no longer the holder's and its lease is lost at once
     */
    Renewal renew(String holder, List<Held> leases, Duration timeout) throws Exception;

    /**
     * Releases the listed leases that are still {@code holder}'s grants, so that the next grant of each name succeeds
     * at once; a lease that is no longer the holder's is left alone.
     *
     * @return how many were the holder's
     */
    int release(String holder, List<Held> leases, Duration timeout) throws Exception;

    /** Who holds {@code name} now (or held it last, if the store remembers), for messages. */
    Optional<Holder> describe(String name, Duration timeout) throws Exception;

    /**
     * A health check: the store is reachable and ready to grant. Empty when ready, or a note on what happens at the
     * first grant; throws naming what is wrong.
     */
    default Optional<String> check(Duration timeout) throws Exception {
        return Optional.empty();
    }

    /** Frees what the store holds (connections, clients). A manager never closes the store it was given. */
    @Override
    default void close() {}

    /** A lease as its holder knows it. */
    record Held(String name, long token, Duration ttl) {}

    /** A granted lease's token. */
    record Grant(long token) {}

    /**
     * The answer to a renewal: the tokens renewed, and those still the holder's that could not be renewed now (a row
     * someone else has locked for an instant); every other token asked about is no longer the holder's.
     */
    record Renewal(Set<Long> renewed, Set<Long> busy) {}

    /**
     * A lease's holder and token, when it expires (in the store's own words, say {@code 2026-12-05 13:00:00+00} or
     * {@code in 7 s}) and whether it is held now.
     */
    record Holder(String holder, long token, String expiresAt, boolean live) {}
}
