package dev.fenced.lease.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.it.support.EtcdServer;
import dev.fenced.spi.LeaseStore;
import dev.fenced.spi.LeaseStore.Held;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One renewal of many leases, their keys read in batches (several read transactions, several windows): each lease
 * is judged by its own key. Leases whose key was deleted, re-created by another holder, or re-created by the same
 * holder (a new token) are reported lost, wherever they sit in the batch; every other lease is renewed.
 */
class BatchRenewalTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String PREFIX = "fenced/batch/";

    @Test
    void eachLeaseOfABatchIsRenewedOrLostByItsOwnKey() throws Exception {
        assumeTrue(EtcdServer.binary().isPresent(), "etcd is not installed (apt-get install -y etcd-server)");
        try (EtcdServer etcd = EtcdServer.start("batch-renewal");
                Client client = Client.builder().endpoints(etcd.clientUrl()).build()) {
            LeaseStore store = new EtcdLeaseStore(client, PREFIX);
            int count = 600; // more than one read transaction and more than one window
            List<Held> held = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String name = "job-" + i;
                LeaseStore.Grant g = store.grant(name, "holder", TTL, TIMEOUT);
                assertNotNull(g, name + " is free");
                held.add(new Held(name, g.token(), TTL));
            }
            // a never-granted name with a made-up token is not renewed either
            held.add(new Held("never-granted", 1, TTL));

            Set<Long> expected = new TreeSet<>();
            for (int i = 0; i < count; i++) {
                Held h = held.get(i);
                String name = h.name();
                if (i % 7 == 3) { // deleted behind the holder's back
                    delete(client, name);
                } else if (i % 11 == 5) { // taken by someone else
                    delete(client, name);
                    assertNotNull(store.grant(name, "other", TTL, TIMEOUT));
                } else if (i % 13 == 0) { // the same holder's name, granted again: a new token, the old one is gone
                    delete(client, name);
                    assertNotNull(store.grant(name, "holder", TTL, TIMEOUT));
                } else {
                    expected.add(h.token());
                }
            }

            LeaseStore.Renewal renewal = store.renew("holder", held, TIMEOUT);

            assertEquals(expected, new TreeSet<>(renewal.renewed()), "renewed exactly the leases whose key is theirs");
            assertEquals(Set.of(), renewal.busy());
        }
    }

    private static void delete(Client client, String name) throws Exception {
        client.getKVClient()
                .delete(ByteSequence.from(PREFIX + name, StandardCharsets.UTF_8))
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
