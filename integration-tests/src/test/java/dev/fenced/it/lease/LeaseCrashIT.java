package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.lease.fault.PgServer;
import dev.fenced.it.support.FencedTestExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A grant is durable before it is returned, whatever {@code synchronous_commit} says: a power cut (SIGKILL of
 * the postmaster and every backend, so WAL still in shared memory is gone) right after a burst of grants,
 * then crash recovery, and no token comes out twice.
 */
@ExtendWith(FencedTestExtension.class)
class LeaseCrashIT {

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
    void noTokenIsGrantedTwiceAcrossAPowerCutWithSynchronousCommitOff() throws Exception {
        root = Files.createTempDirectory("fenced-crash-");
        // Asynchronous commit, and a WAL writer that waits long: an acknowledged commit sits in WAL buffers.
        server = PgServer.init(
                        root.resolve("data"),
                        Map.of(
                                "synchronous_commit",
                                "off",
                                "wal_writer_delay",
                                "'10s'",
                                "wal_writer_flush_after",
                                "'1GB'"))
                .start();
        assertEquals("off", server.query("SHOW synchronous_commit"));
        TreeSet<Long> before = new TreeSet<>();
        LeaseManager first =
                LeaseManager.builder(server.dataSource()).withoutRenewal().build();
        var unused = first.tryAcquire("warm-up", Duration.ofMinutes(5)).orElseThrow(); // creates the store
        server.execute("CHECKPOINT");
        for (int i = 0; i < 40; i++) {
            try (Lease l = first.tryAcquire("job-" + i, Duration.ofMinutes(5)).orElseThrow()) {
                before.add(l.token());
            }
        }
        server.killAll();
        first.close();
        server.start(); // crash recovery on the same data directory

        List<Long> repeated = new ArrayList<>();
        try (LeaseManager second =
                LeaseManager.builder(server.dataSource()).withoutRenewal().build()) {
            for (int i = 0; i < 40; i++) {
                try (Lease l =
                        second.tryAcquire("after-" + i, Duration.ofMinutes(5)).orElseThrow()) {
                    if (l.token() <= before.last()) {
                        repeated.add(l.token());
                    }
                }
            }
        }
        assertTrue(
                repeated.isEmpty(),
                "tokens granted before the crash came out again after it: " + repeated + " (before: " + before.first()
                        + ".." + before.last() + ")");
    }
}
