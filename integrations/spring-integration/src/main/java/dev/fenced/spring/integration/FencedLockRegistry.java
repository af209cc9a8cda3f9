package dev.fenced.spring.integration;

import dev.fenced.LeaseManager;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@code LockRegistry} whose locks are fenced leases: {@code obtain("orders")} returns a
 * lock over lease {@code orders} (or {@code <prefix>orders}), and while a thread holds it the lease's fencing token
 * is bound to that thread, so every write it makes to a protected table through the fenced driver carries it.
 * Works with {@code LockRegistryLeaderInitiator}: a frozen leader loses its lease after the ttl, leadership moves,
 * and the old leader's late writes are refused.
 *
 * <pre>{@code
 * @Bean
 * FencedLockRegistry lockRegistry(DataSource dataSource) {
 *     return new FencedLockRegistry(dataSource);            // leases in fenced_lease, ttl 10 s
 * }
 * }</pre>
 *
 * <p>Semantics, as Spring Integration's {@code JdbcLockRegistry} has them, the database clock deciding:
 * <ul>
 *   <li>The ttl is how long a lock lasts unless renewed: {@link #renewLock}, or {@code tryLock} again by the
 *       holding thread (what {@code LockRegistryLeaderInitiator}'s heartbeat does), makes it last a ttl from now.
 *       A lock whose ttl ran out is lost: its token is poisoned, its holder's writes to protected tables are
 *       refused, another node may take it. With a {@link LeaseManager} that renews in the background, held
 *       locks last as long as their process is alive.</li>
 *   <li>Locks are reentrant for the holding thread; only that thread may unlock.</li>
 *   <li>{@code tryLock} by the holder of a lock whose lease was lost returns false and drops the hold (the lock is
 *       no longer held, and a later {@code unlock} by that thread throws {@code IllegalMonitorStateException});
 *       {@code unlock} of a lock whose lease was lost while held releases it and throws
 *       {@code ConcurrentModificationException}, as {@code JdbcLockRegistry} does: the section was not exclusive to
 *       the end (but its protected writes after the loss were refused). The same when another thread of this
 *       process took the lock after the lease ran out: the old holder's unlock still closes its lease, so its thread
 *       is left with nothing bound.</li>
 *   <li>{@code newCondition()} is not supported.</li>
 * </ul>
 */
public final class FencedLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry, AutoCloseable {

    /** The default ttl, as {@code JdbcLockRegistry}'s default {@code expireAfter}. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);

    private final LeaseManager leases;
    private final boolean ownsLeases;
    private final Duration ttl;
    private final String prefix;
    private final ConcurrentMap<String, FencedLock> locks = new ConcurrentHashMap<>();

    /**
     * Locks over leases in {@code dataSource}'s database (table {@code fenced_lease}, created if missing), with
     * the {@linkplain #DEFAULT_TTL default ttl}, through a lease manager of the registry's own that renews only when
     * asked; {@link #close()} closes it.
     */
    public FencedLockRegistry(DataSource dataSource) {
        this(
                LeaseManager.builder(Objects.requireNonNull(dataSource, "dataSource"))
                        .withoutRenewal()
                        .build(),
                true,
                DEFAULT_TTL,
                "");
    }

    /**
     * Locks over leases of {@code leases} (the caller closes it), each lasting {@code ttl} unless renewed, named
     * {@code prefix + key}.
     */
    public FencedLockRegistry(LeaseManager leases, Duration ttl, String prefix) {
        this(leases, false, ttl, prefix);
    }

    private FencedLockRegistry(LeaseManager leases, boolean ownsLeases, Duration ttl, String prefix) {
        this.leases = Objects.requireNonNull(leases, "leases");
        this.ownsLeases = ownsLeases;
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("fenced: a FencedLockRegistry ttl must be positive, got " + ttl);
        }
        this.prefix = Objects.requireNonNull(prefix, "prefix");
    }

    /** The lock over lease {@code prefix + lockKey}; the same object for the same key while it is in use. */
    @Override
    public Lock obtain(Object lockKey) {
        String name = prefix + Objects.requireNonNull(lockKey, "lockKey");
        return locks.computeIfAbsent(name, n -> new FencedLock(n, leases, ttl));
    }

    /**
     * Makes the lock over {@code lockKey}, held by the calling thread, last a ttl from now.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold it
     * @throws java.util.ConcurrentModificationException if its lease was lost (the hold is dropped)
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, ttl);
    }

    /**
     * Makes the lock over {@code lockKey}, held by the calling thread, last {@code ttl} from now. Spring
     * Integration 7's {@code RenewableLockRegistry} declares it (6.5's does not, hence no {@code @Override}: the
     * same class serves both).
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold it
     * @throws java.util.ConcurrentModificationException if its lease was lost (the hold is dropped)
     */
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("fenced: a lock renewal ttl must be positive, got " + ttl);
        }
        FencedLock lock = locks.get(prefix + Objects.requireNonNull(lockKey, "lockKey"));
        if (lock == null) {
            throw new IllegalMonitorStateException(
                    "fenced: lock '" + prefix + lockKey + "' is not held by this thread");
        }
        lock.renew(ttl);
    }

    /** Forgets locks that nobody holds and nobody has used for {@code age} milliseconds. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = leases.ticker().read();
        locks.values().removeIf(lock -> lock.unusedFor(now) > age * 1_000_000L);
    }

    /** The lease manager behind this registry's locks. */
    public LeaseManager leaseManager() {
        return leases;
    }

    /** Closes the lease manager if this registry made it (releasing every lock still held). */
    @Override
    public void close() {
        if (ownsLeases) {
            leases.close();
        }
    }
}
