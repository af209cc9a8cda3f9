package dev.fenced.demo;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.LeaseManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker JVM for {@code --processes}: runs its share of the workers; to freeze, it asks the parent
 * (stdout {@code FREEZE id ms}), which stops this JVM with SIGSTOP and, after the pause, resumes it with
 * SIGCONT and answers {@code THAW id} on stdin.
 */
public final class WorkerProcess {

    static final String FREEZE = "FREEZE";
    static final String THAW = "THAW";
    static final String COUNTERS = "COUNTERS";
    /** The ledger argument when the job writes one database. */
    static final String NO_LEDGER = "-";

    private WorkerProcess() {}

    public static void main(String[] args) throws Exception {
        String fencedUrl = args[0];
        Options.Mode mode = Options.Mode.parse(args[1]);
        List<String> names = List.of(args[2].split(","));
        String ledgerUrl = NO_LEDGER.equals(args[3]) ? null : args[3];
        Options options = Options.parse(Arrays.copyOfRange(args, 4, args.length));
        ParentFreezer freezer = new ParentFreezer();
        List<Thread> threads = new ArrayList<>();
        List<LeaseManager> managers = new ArrayList<>();
        try (HikariDataSource pool = ModeRun.pool(fencedUrl, names.size() * 2 + 2, "worker-process");
                HikariDataSource ledger = ledgerUrl == null
                        ? null
                        : ModeRun.pool(ledgerUrl, names.size() * 2 + 2, "worker-process-ledger")) {
            for (String name : names) {
                LeaseManager leases = ModeRun.leases(pool, name, options, mode);
                managers.add(leases);
                threads.add(new Thread(new Worker(name, pool, ledger, leases, freezer, options), name));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            managers.forEach(LeaseManager::close);
        }
        Map<String, Long> c = FencedStats.counters();
        System.out.println(
                COUNTERS + " " + c.get("fenced.leases.renewed") + " " + c.get("fenced.leases.renewals_failed"));
        System.out.flush();
    }

    /** Freezes by asking the parent to stop the whole JVM. */
    private static final class ParentFreezer implements Freezer {
        private final AtomicInteger ids = new AtomicInteger();
        private final Map<Integer, CountDownLatch> waiting = new ConcurrentHashMap<>();

        ParentFreezer() {
            Thread reader = new Thread(
                    () -> {
                        try (BufferedReader in =
                                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = in.readLine()) != null) {
                                String[] parts = line.split(" ");
                                if (parts[0].equals(THAW)) {
                                    CountDownLatch latch = waiting.remove(Integer.parseInt(parts[1]));
                                    if (latch != null) {
                                        latch.countDown();
                                    }
                                }
                            }
                        } catch (java.io.IOException ignored) {
                            // the parent closed our stdin: nothing more to thaw
                        }
                    },
                    "thaw-reader");
            reader.setDaemon(true);
            reader.start();
        }

        @Override
        public void freeze(long millis) throws InterruptedException {
            int id = ids.incrementAndGet();
            CountDownLatch latch = new CountDownLatch(1);
            waiting.put(id, latch);
            synchronized (System.out) {
                System.out.println(FREEZE + " " + id + " " + millis);
                System.out.flush();
            }
            latch.await();
        }
    }
}
