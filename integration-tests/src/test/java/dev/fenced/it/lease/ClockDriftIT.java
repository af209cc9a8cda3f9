package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.lease.fault.PgServer;
import dev.fenced.it.support.FencedTestExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The database clock jumps forward while a lease is held (libfaketime in the server). Expiry is the database's
 * call, so the lease ends early there and a second holder gets it; the first holder's own deadline must have
 * passed by then: the default clock-drift margin (a tenth of the ttl) covers a jump smaller than that.
 */
@ExtendWith(FencedTestExtension.class)
class ClockDriftIT {

    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private Path root;
    private PgServer server;

    @AfterEach
    void cleanUp() throws Exception {
        if (server != null) {
            server.close();
        }
        PgServer.delete(root);
    }

    @Test
    void noOverlapWhenTheDatabaseClockJumpsForwardWithinTheMargin() throws Exception {
        assumeTrue(Files.exists(LIBFAKETIME), "libfaketime is not installed (apt-get install libfaketime)");
        root = Files.createTempDirectory("fenced-clock-");
        Path offset = root.resolve("faketime");
        Files.writeString(offset, "+0\n");
        server = PgServer.init(root.resolve("data"), Map.of())
                .withEnv(Map.of(
                        "LD_PRELOAD",
                        LIBFAKETIME.toString(),
                        "FAKETIME_TIMESTAMP_FILE",
                        offset.toString(),
                        "FAKETIME_NO_CACHE",
                        "1",
                        "FAKETIME_DONT_FAKE_MONOTONIC",
                        "1"))
                .start();
        Duration ttl = Duration.ofSeconds(10);
        try (LeaseManager first = LeaseManager.builder(server.dataSource())
                        .withoutRenewal()
                        .build();
                LeaseManager second = LeaseManager.builder(server.dataSource())
                        .withoutRenewal()
                        .build()) {
            Lease held = first.tryAcquire("drift", ttl).orElseThrow();
            FencedTestExtension.unbind();
            Timestamp before = (Timestamp) server.query("SELECT now()");
            Files.writeString(offset, "+0.7\n"); // the server clock jumps 0.7 s ahead
            Timestamp after = (Timestamp) server.query("SELECT now()");
            long jumpMs = after.getTime() - before.getTime();
            assertTrue(jumpMs >= 600, "the server clock jumped by " + jumpMs + " ms");
            Optional<Lease> taken = Optional.empty();
            long end = System.nanoTime() + ttl.multipliedBy(2).toNanos();
            while (taken.isEmpty() && System.nanoTime() < end) {
                taken = second.tryAcquire("drift", ttl);
                if (taken.isEmpty()) {
                    Thread.sleep(10);
                }
            }
            assertTrue(taken.isPresent(), "the second holder never got the lease");
            assertFalse(
                    held.isValid(),
                    "the first holder still believes in its lease after the database gave it to " + "another (token "
                            + taken.get().token() + ")");
        }
    }
}
