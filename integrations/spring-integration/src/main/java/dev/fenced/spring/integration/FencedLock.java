package dev.fenced.spring.integration;

import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * One lock of a {@link FencedLockRegistry}: a reentrant hold by one thread over one lease, which was acquired on
 * that thread (so its token is bound there) and is released there when the last hold ends.
 */
final class FencedLock implements Lock {

    /** lock() waits in slices of this, so a store that answers again is noticed. */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(1);

    private final String name;
    private final LeaseManager leases;
    private final Duration ttl;

    // Guarded by this. Only the owner changes them while it holds the lock; others only read owner.
    private @Nullable Thread owner;
    private int holds;
    private @Nullable Lease lease; // set whenever owner is
    private long lastUsedNanos;
    /**
     * Holds whose lease ran out and whose lock another thread of this process then took, by holding thread: that
     * thread's own unlock, tryLock or renewal still ends its hold there, closing its lease on it (which unbinds the
     * dead token from it) and telling it the section was not exclusive to the end. Guarded by this.
     */
    private final Map<Thread, Overtaken> overtaken = new HashMap<>();

    private record Overtaken(Lease lease, int holds) {}

    FencedLock(String name, LeaseManager leases, Duration ttl) {
        this.name = name;
        this.leases = leases;
        this.ttl = ttl;
        this.lastUsedNanos = leases.ticker().read();
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (tryLock(WAIT_SLICE.toMillis(), TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // lock() is not interruptible: keep the flag for the caller
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        while (!tryLock(WAIT_SLICE.toMillis(), TimeUnit.MILLISECONDS)) {
            if (Thread.interrupted()) {
                throw new InterruptedException("fenced: interrupted while waiting for lock '" + name + "'");
            }
        }
    }

    @Override
    public boolean tryLock() {
        if (droppedOvertakenHold()) {
            return false;
        }
        if (reentered()) {
            return renewedOrDropped();
        }
        try {
            return held(leases.tryAcquire(name, ttl).orElse(null));
        } catch (SQLException e) {
            throw storeFailure("take", e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (droppedOvertakenHold()) {
            return false;
        }
        if (reentered()) {
            return renewedOrDropped();
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("fenced: interrupted before taking lock '" + name + "'");
        }
        try {
            return held(leases.acquire(name, ttl, Duration.ofNanos(Math.max(0, unit.toNanos(time)))));
        } catch (FencingException e) {
            if (FencingException.LEASE_TIMEOUT.equals(e.getSQLState())) {
                return false;
            }
            if (Thread.interrupted() || e.getCause() instanceof InterruptedException) {
                throw new InterruptedException("fenced: interrupted while waiting for lock '" + name + "'");
            }
            throw storeFailure("take", e);
        } catch (SQLException e) {
            throw storeFailure("take", e);
        }
    }

    @Override
    public void unlock() {
        Lease released;
        synchronized (this) {
            Overtaken mine = overtaken.remove(Thread.currentThread());
            if (mine != null) {
                if (mine.holds() > 1) {
                    overtaken.put(Thread.currentThread(), new Overtaken(mine.lease(), mine.holds() - 1));
                    return;
                }
                released = mine.lease();
            } else if (owner != Thread.currentThread()) {
                throw new IllegalMonitorStateException("fenced: lock '" + name + "' is not held by this thread"
                        + " (a lock whose lease was lost is no longer held)");
            } else {
                lastUsedNanos = leases.ticker().read();
                if (--holds > 0) {
                    return;
                }
                released = ownersLease();
                owner = null;
                lease = null;
            }
        }
        // Outside the monitor: the release is a store round trip, and other threads only read the owner.
        boolean wasValid = released.isValid();
        released.close();
        if (!wasValid) {
            throw new ConcurrentModificationException("fenced: lock '" + name + "' (token " + released.token()
                    + ") was lost before unlock: its lease ran out or was taken over, so the section was not exclusive"
                    + " to the end; its writes to protected tables after the loss were refused");
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("fenced: FencedLockRegistry locks have no conditions");
    }

    /**
     * Renewal by the holding thread ({@code RenewableLockRegistry.renewLock}): the lock lasts {@code ttl} from now
     * (the registry's ttl, or the one Spring Integration 7's {@code renewLock(key, ttl)} asks for).
     */
    void renew(Duration ttl) {
        if (droppedOvertakenHold()) {
            throw new ConcurrentModificationException("fenced: lock '" + name + "' could not be renewed: its lease"
                    + " ran out and another thread took the lock; the lock is no longer held by this thread");
        }
        synchronized (this) {
            if (owner != Thread.currentThread()) {
                throw new IllegalMonitorStateException("fenced: lock '" + name + "' is not held by this thread");
            }
        }
        if (!renewedOrDropped(ttl)) {
            throw new ConcurrentModificationException("fenced: lock '" + name + "' could not be renewed: its lease"
                    + " was lost (ran out or taken over); the lock is no longer held");
        }
        unlock(); // the hold renewedOrDropped counted
    }

    /** How long nobody has held or asked for this lock, on its lease manager's {@link dev.fenced.Ticker}. */
    synchronized long unusedFor(long nowNanos) {
        return owner != null || !overtaken.isEmpty() ? -1 : nowNanos - lastUsedNanos;
    }

    /**
     * The calling thread's hold was overtaken (see {@link #overtaken}): it is dropped, its lease closed here. As
     * {@code tryLock} by the holder of any lost lock, it answers false; the thread holds nothing afterwards.
     */
    private boolean droppedOvertakenHold() {
        Overtaken mine;
        synchronized (this) {
            mine = overtaken.remove(Thread.currentThread());
        }
        if (mine == null) {
            return false;
        }
        mine.lease().close();
        return true;
    }

    private synchronized boolean reentered() {
        return owner == Thread.currentThread();
    }

    /**
     * The holder takes the lock again: the lease is made to last a ttl from now (unless its manager renews it
     * anyway) and the hold counted; a lease that is lost drops the whole hold and answers false.
     */
    private boolean renewedOrDropped() {
        return renewedOrDropped(ttl);
    }

    private boolean renewedOrDropped(Duration ttl) {
        Lease current;
        synchronized (this) {
            current = ownersLease();
        }
        boolean valid;
        try {
            valid = current.isValid() && (leases.renews() || current.extend(ttl));
        } catch (SQLException e) {
            // The store did not answer: the lease keeps its deadline; report it as not renewed, still held.
            throw storeFailure("renew", e);
        }
        synchronized (this) {
            lastUsedNanos = leases.ticker().read();
            if (valid) {
                holds++;
                return true;
            }
            owner = null;
            holds = 0;
            lease = null;
        }
        current.close();
        return false;
    }

    private synchronized boolean held(@Nullable Lease granted) {
        lastUsedNanos = leases.ticker().read();
        if (granted == null) {
            return false;
        }
        if (owner != null && owner != Thread.currentThread()) {
            // The store granted the name again, so the previous holder's lease ran out: keep its hold for its thread.
            overtaken.put(owner, new Overtaken(ownersLease(), holds));
        }
        owner = Thread.currentThread();
        holds = 1;
        lease = granted;
        return true;
    }

    /** The lease of the thread holding the lock; the caller holds this monitor and knows there is an owner. */
    private Lease ownersLease() {
        Lease held = lease;
        if (held == null) {
            throw new IllegalStateException("fenced: lock '" + name + "' has an owner but no lease");
        }
        return held;
    }

    private IllegalStateException storeFailure(String what, SQLException e) {
        return new IllegalStateException(
                "fenced: could not " + what + " lease '" + name + "' for lock: " + e.getMessage(), e);
    }

    @Override
    public synchronized String toString() {
        return "FencedLock[" + name + (owner == null ? ", free" : ", held by " + owner.getName() + ", " + lease) + "]";
    }
}
