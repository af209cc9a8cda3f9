package dev.fenced.lease.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.EtcdServer;
import io.etcd.jetcd.Client;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A fresh jetcd client handed straight to a {@link LeaseManager}: its first call (which starts vert.x) runs on one of
 * fenced's lease workers, which have no context class loader. It must work. It runs in a JVM of its own, since
 * vert.x starts once per JVM and any earlier call in this one would have started it already.
 */
class FirstCallOnALeaseWorkerTest {

    @Test
    void aFreshClientsFirstCallOnALeaseWorkerGrants() throws Exception {
        assumeTrue(EtcdServer.binary().isPresent(), "etcd is not installed (apt-get install -y etcd-server)");
        try (EtcdServer etcd = EtcdServer.start("first-call")) {
            Process child = new ProcessBuilder(List.of(
                            System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                            "-cp",
                            System.getProperty("java.class.path"),
                            Child.class.getName(),
                            etcd.clientUrl()))
                    .redirectErrorStream(true)
                    .start();
            String out;
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                throw new AssertionError("the child JVM did not finish in 60 s");
            }
            out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, child.exitValue(), () -> "the child JVM failed:\n" + out);
        }
    }

    /** The application's side: a client, a store, a manager, a grant. Exit 0 when the lease was granted. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            Client client = Client.builder().endpoints(args[0]).build();
            try (LeaseManager manager = LeaseManager.builder(new EtcdLeaseStore(client, "fenced/leases/"))
                    .holder("first-call")
                    .storeTimeout(Duration.ofSeconds(10))
                    .build()) {
                Optional<Lease> lease = manager.tryAcquire("first-call", Duration.ofSeconds(10));
                if (lease.isEmpty()) {
                    System.out.println("not granted");
                    System.exit(1);
                }
                lease.get().close();
            } finally {
                client.close();
            }
            System.exit(0);
        }
    }
}
