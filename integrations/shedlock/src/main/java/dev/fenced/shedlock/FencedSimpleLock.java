package dev.fenced.shedlock;

import dev.fenced.Lease;
import java.sql.SQLException;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

/**
 * One ShedLock lock over one fenced lease. {@link AbstractSimpleLock} makes a lock unusable once unlocked or
 * extended; the extended lock is a new object over the same lease, with the new configuration's
 * {@code lockAtLeastFor}.
 */
final class FencedSimpleLock extends AbstractSimpleLock {

    private final Lease lease;

    FencedSimpleLock(Lease lease, LockConfiguration configuration) {
        super(configuration);
        this.lease = lease;
    }

    /** The lease's token, as bound to the locking thread. */
    long token() {
        return lease.token();
    }

    @Override
    protected void doUnlock() {
        lease.closeKeepingFor(lockConfiguration.getLockAtLeastFor());
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
        try {
            return lease.extend(FencedLockProvider.ttl(newConfiguration))
                    ? Optional.of(new FencedSimpleLock(lease, newConfiguration))
                    : Optional.empty();
        } catch (SQLException e) {
            throw new LockException(
                    "fenced: could not extend lease '" + lease.name() + "' (token " + lease.token() + "): "
                            + e.getMessage(),
                    e);
        }
    }

    @Override
    public String toString() {
        return "FencedSimpleLock[" + lease + "]";
    }
}
