package dev.fenced.shedlock;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

/**
 * A ShedLock {@code LockProvider} whose locks are fenced leases: {@code @SchedulerLock(name = "nightly",
 * lockAtMostFor = "10m")} runs under lease {@code nightly}, and while the task runs its fencing token is bound to
 * the task's thread, so every write it makes to a protected table through the fenced driver carries it.
 *
 * <pre>{@code
 * LockProvider locks = new FencedLockProvider(dataSource);   // the lease table fenced_lease is created if missing
 * }</pre>
 *
 * <p>ShedLock's semantics are kept as its own JDBC providers keep them, with the database clock deciding:
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease's ttl and a hard upper bound: the lease is never renewed in the
 *       background, so a task still running when it passes has lost its lock, and from that moment the driver
 *       refuses its writes to protected tables ({@code LeaseLostException}; a write that slipped past that check
 *       would meet the newer holder's token in PostgreSQL: {@code StaleTokenException}). That is what no plain
 *       ShedLock provider can do: the late writer is stopped where the data is written.</li>
 *   <li>{@code lockAtLeastFor}: an unlock before it has passed (counted from the lock, or from the last
 *       extension) poisons the token at once but leaves the lease taken in the store until then, so no other
 *       node runs the task early.</li>
 *   <li>{@link SimpleLock#extend} (and so {@code KeepAliveLockProvider} and {@code LockExtender}) extends the
 *       lease to the new {@code lockAtMostFor} from now, in one statement; an expired or taken-over lock cannot
 *       be extended.</li>
 * </ul>
 *
 * <p>The task must unlock on the thread that locked, as ShedLock's {@code DefaultLockingTaskExecutor} does:
 * the token is bound to that thread.
 */
public final class FencedLockProvider implements ExtensibleLockProvider, AutoCloseable {

    /** ShedLock allows a {@code lockAtMostFor} of zero; a lease lasts at least this long. */
    private static final Duration SHORTEST_TTL = Duration.ofMillis(1);

    private final LeaseManager leases;
    private final boolean ownsLeases;

    /**
     * Leases in {@code dataSource}'s database (table {@code fenced_lease}), through a lease manager of this
     * provider's own that never renews in the background; {@link #close()} closes it.
     */
    public FencedLockProvider(DataSource dataSource) {
        this(
                LeaseManager.builder(Objects.requireNonNull(dataSource, "dataSource"))
                        .withoutRenewal()
                        .build(),
                true);
    }

    /**
     * Leases from {@code leases}, which must be built {@link LeaseManager.Builder#withoutRenewal()
     * withoutRenewal()}: {@code lockAtMostFor} is an upper bound, and a manager that renews would hold the lock
     * for as long as the process lives. The caller closes it.
     *
     * @throws IllegalArgumentException if the manager renews its leases
     */
    public FencedLockProvider(LeaseManager leases) {
        this(leases, false);
    }

    private FencedLockProvider(LeaseManager leases, boolean ownsLeases) {
        this.leases = Objects.requireNonNull(leases, "leases");
        if (leases.renews()) {
            throw new IllegalArgumentException("fenced: FencedLockProvider needs a LeaseManager built withoutRenewal():"
                    + " ShedLock's lockAtMostFor is an upper bound, and a manager that renews in the background would"
                    + " hold a lock for as long as its process lives (holder " + leases.holder() + ")");
        }
        this.ownsLeases = ownsLeases;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Optional<Lease> lease;
        try {
            lease = leases.tryAcquire(configuration.getName(), ttl(configuration));
        } catch (SQLException e) {
            throw new LockException(
                    "fenced: could not take lease '" + configuration.getName() + "': " + e.getMessage(), e);
        }
        return lease.map(l -> new FencedSimpleLock(l, configuration));
    }

    /** The lease manager behind this provider's locks. */
    public LeaseManager leaseManager() {
        return leases;
    }

    /** Closes the lease manager if this provider made it (releasing every lock still held). */
    @Override
    public void close() {
        if (ownsLeases) {
            leases.close();
        }
    }

    static Duration ttl(LockConfiguration configuration) {
        Duration atMost = configuration.getLockAtMostFor();
        return atMost.compareTo(SHORTEST_TTL) < 0 ? SHORTEST_TTL : atMost;
    }
}
