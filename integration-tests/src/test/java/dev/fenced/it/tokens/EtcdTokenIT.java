package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.it.support.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lock.LockResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * etcd: a lock bound to a lease; the token is the lock key's create revision (etcd's store revision when the key was
 * written), which grows with every write to the cluster. A real etcd (Debian's etcd-server) runs on loopback ports.
 */
class EtcdTokenIT {

    static final String DOMAIN = "etcd";
    static final ByteSequence LOCK = ByteSequence.from("fenced/locks/totals", StandardCharsets.UTF_8);

    static EtcdServer etcd;
    static Client client;
    static FencedTable table;

    @BeforeAll
    static void start() throws Exception {
        Services.require(
                EtcdServer.binary().isPresent(),
                "etcd is not installed (apt-get install -y etcd-server): the etcd token source cannot be tested");
        etcd = EtcdServer.start("fenced-test");
        client = Client.builder().endpoints(etcd.clientUrl()).build();
        table = FencedTable.create(DOMAIN);
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    /** The recipe: lock under a lease; the token is the lock key's create revision. */
    static long lockAndGetToken(long ttlSeconds) throws Exception {
        long lease = client.getLeaseClient()
                .grant(ttlSeconds)
                .get(10, TimeUnit.SECONDS)
                .getID();
        LockResponse lock = client.getLockClient().lock(LOCK, lease).get(30, TimeUnit.SECONDS);
        GetResponse key = client.getKVClient().get(lock.getKey()).get(10, TimeUnit.SECONDS);
        assertEquals(1, key.getKvs().size(), "the lock key exists while its lease lives");
        return key.getKvs().get(0).getCreateRevision();
    }

    @Test
    void aPausedHolderWhoseLeaseExpiredCannotWriteAfterTheNextHolder() throws Exception {
        // the first holder's lease is never kept alive: paused, it lets the lease run out after 2 s
        PausedHolder paused =
                PausedHolder.start("etcd-holder-1", () -> lockAndGetToken(2), token -> table.writeUnder(token, 111));
        long firstToken = paused.token();

        long secondToken = lockAndGetToken(30); // waits until the first lease expired and etcd deleted its key
        table.writeUnder(secondToken, 222);

        Throwable late = paused.resumeAndWrite();
        table.assertOnlyTheSecondHolderWrote(firstToken, secondToken, 222, late);
    }
}
