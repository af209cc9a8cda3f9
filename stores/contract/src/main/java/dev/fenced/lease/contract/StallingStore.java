package dev.fenced.lease.contract;

import dev.fenced.spi.LeaseStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A store that, once {@link #stall()}ed, blocks every call until {@link #open()}, ignoring interrupts: the worst a
 * store can do (a client with no timeout of its own behind a network that silently dropped everything).
 */
public final class StallingStore implements LeaseStore {

    private final LeaseStore delegate;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final AtomicInteger stuck = new AtomicInteger();

    public StallingStore(LeaseStore delegate) {
        this.delegate = delegate;
    }

    /** From now on every call blocks until {@link #open()}. */
    public void stall() {
        gate = new CountDownLatch(1);
    }

    /** Lets every blocked call through; later calls pass. */
    public void open() {
        gate.countDown();
    }

    /** How many calls were blocked. */
    public int stuck() {
        return stuck.get();
    }

    private void pass() {
        CountDownLatch g = gate;
        if (g.getCount() == 0) {
            return;
        }
        stuck.incrementAndGet();
        boolean interrupted = false;
        while (true) {
            try {
                g.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // a stalled socket read does not notice interrupts either
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String tokenDomain() {
        return delegate.tokenDomain();
    }

    @Override
    public @Nullable Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
        pass();
        return delegate.grant(name, holder, ttl, timeout);
    }

    @Override
    public Renewal renew(String holder, List<Held> leases, Duration timeout) throws Exception {
        pass();
        return delegate.renew(holder, leases, timeout);
    }

    @Override
    public int release(String holder, List<Held> leases, Duration timeout) throws Exception {
        pass();
        return delegate.release(holder, leases, timeout);
    }

    @Override
    public Optional<Holder> describe(String name, Duration timeout) throws Exception {
        pass();
        return delegate.describe(name, timeout);
    }

    @Override
    public Optional<String> check(Duration timeout) throws Exception {
        pass();
        return delegate.check(timeout);
    }
}
