package dev.fenced.it.support;

import dev.fenced.spi.LeaseStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A lease store that forwards every call to another one; a test store overrides what it changes (a broken store
 * what it breaks, a store that owns its client {@link #close()}).
 */
public class ForwardingLeaseStore implements LeaseStore {

    protected final LeaseStore delegate;

    public ForwardingLeaseStore(LeaseStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public String tokenDomain() {
        return delegate.tokenDomain();
    }

    @Override
    public Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
        return delegate.grant(name, holder, ttl, timeout);
    }

    @Override
    public Renewal renew(String holder, List<Held> leases, Duration timeout) throws Exception {
        return delegate.renew(holder, leases, timeout);
    }

    @Override
    public int release(String holder, List<Held> leases, Duration timeout) throws Exception {
        return delegate.release(holder, leases, timeout);
    }

    @Override
    public Optional<Holder> describe(String name, Duration timeout) throws Exception {
        return delegate.describe(name, timeout);
    }

    @Override
    public Optional<String> check(Duration timeout) throws Exception {
        return delegate.check(timeout);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
