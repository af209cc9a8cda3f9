package dev.fenced.lease.etcd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.lease.contract.LeaseStoreContract;
import dev.fenced.spi.LeaseStore;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The etcd store passes the contract against a real etcd (one member, loopback ports), started here. */
class EtcdLeaseStoreContractTest extends LeaseStoreContract {

    private static Process etcd;
    private static Path dataDir;
    private static String clientUrl;

    @BeforeAll
    static void start() throws Exception {
        Path binary = Path.of("/usr/bin/etcd");
        assumeTrue(Files.isExecutable(binary), "etcd is not installed (apt-get install -y etcd-server)");
        int clientPort = freePort();
        int peerPort = freePort();
        dataDir = Files.createTempDirectory("fenced-etcd-store");
        clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        etcd = new ProcessBuilder(
                        binary.toString(),
                        "--name",
                        "contract",
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
                        "contract=" + peerUrl)
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("etcd.log").toFile())
                .start();
        try (Client client = Client.builder().endpoints(clientUrl).build()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) { // ready when it answers a read
                try {
                    client.getKVClient()
                            .get(ByteSequence.from("ready", StandardCharsets.UTF_8))
                            .get(1, TimeUnit.SECONDS);
                    break;
                } catch (Exception e) {
                    if (!etcd.isAlive() || System.nanoTime() > deadline) {
                        throw new IllegalStateException(
                                "etcd did not start: " + Files.readString(dataDir.resolve("etcd.log")), e);
                    }
                }
            }
        }
    }

    @AfterAll
    static void stop() throws IOException {
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

    @Override
    protected LeaseStore createStore() {
        Client client = Client.builder().endpoints(clientUrl).build();
        return new ClosingStore(new EtcdLeaseStore(client, "fenced/leases/"), client);
    }

    /** etcd counts ttls in whole seconds, with a minimum of about 1.5 s. */
    @Override
    protected Duration shortTtl() {
        return Duration.ofSeconds(2);
    }
}
