package dev.fenced.lease.etcd;

import dev.fenced.spi.LeaseStore;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** An etcd store that closes its own client: each store of the contract is a restart with a client of its own. */
final class ClosingStore implements LeaseStore {

    private final LeaseStore delegate;
    private final Client client;

    ClosingStore(LeaseStore delegate, Client client) {
        this.delegate = delegate;
        this.client = client;
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
    public void close() {
        client.close();
    }
}
