package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lock.LockResponse;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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

    static Process etcd;
    static Path dataDir;
    static Client client;
    static FencedTable table;

    static Path binary() {
        for (String dir : List.of("/usr/bin", "/usr/local/bin")) {
            if (Files.isExecutable(Path.of(dir, "etcd"))) {
                return Path.of(dir, "etcd");
            }
        }
        return null;
    }

    @BeforeAll
    static void start() throws Exception {
        Path etcdBinary = binary();
        Services.require(
                etcdBinary != null,
                "etcd is not installed (apt-get install -y etcd-server): the etcd token" + " source cannot be tested");
        int clientPort = freePort();
        int peerPort = freePort();
        dataDir = Files.createTempDirectory("fenced-etcd");
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        etcd = new ProcessBuilder(
                        etcdBinary.toString(),
                        "--name",
                        "fenced-test",
                        "--data-dir",
                        dataDir.toString(),
                        "--listen-client-urls",
                        clientUrl,
                        "--advertise-client-urls",
                        clientUrl,
                        "--listen-peer-urls",
                        peerUrl,
                        "--initial-advertise-peer-urls",
                        peerUrl,
                        "--initial-cluster",
                        "fenced-test=" + peerUrl)
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("etcd.log").toFile())
                .start();
        client = Client.builder().endpoints(clientUrl).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) { // ready when it answers a read
            try {
                client.getKVClient().get(LOCK).get(1, TimeUnit.SECONDS);
                break;
            } catch (Exception e) {
                if (!etcd.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "etcd did not start: " + Files.readString(dataDir.resolve("etcd.log")), e);
                }
            }
        }
        table = FencedTable.create(DOMAIN);
    }

    @AfterAll
    static void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        if (etcd != null) {
            etcd.destroy();
        }
        if (dataDir != null) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
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
