package dev.fenced.lease.etcd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.it.support.EtcdServer;
import dev.fenced.it.support.ForwardingLeaseStore;
import dev.fenced.lease.contract.LeaseStoreContract;
import dev.fenced.spi.LeaseStore;
import io.etcd.jetcd.Client;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The etcd store passes the contract against a real etcd (one member, loopback ports), started here. */
class EtcdLeaseStoreContractTest extends LeaseStoreContract {

    private static EtcdServer etcd;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(EtcdServer.binary().isPresent(), "etcd is not installed (apt-get install -y etcd-server)");
        etcd = EtcdServer.start("contract");
    }

    @AfterAll
    static void stop() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** Each store of the contract is a restart: a client of its own, closed with the store. */
    @Override
    protected LeaseStore createStore() {
        Client client = Client.builder().endpoints(etcd.clientUrl()).build();
        return new ForwardingLeaseStore(new EtcdLeaseStore(client, "fenced/leases/")) {
            @Override
            public void close() {
                super.close();
                client.close();
            }
        };
    }

    /** etcd counts ttls in whole seconds, with a minimum of about 1.5 s. */
    @Override
    protected Duration shortTtl() {
        return Duration.ofSeconds(2);
    }
}
