package dev.fenced.it.agent;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child main for the revocation and lease-callback findings of issue 17: {@code LeakMain MODE FENCED_URL RAW_URL}.
 * Each scenario prints {@code result <scenario> <outcome>}, the outcome of a protected write being {@code landed}
 * or the simple name of the exception that refused it.
 *
 * <ul>
 *   <li>{@code revoke}: a periodic task, a pre-built FutureTask and (Java 21+) an unstarted virtual thread, all
 *       captured under {@code Fencing.bind(42)}, write after the scope closed; the acquiring thread after its lease was
 *       closed on another thread and then by itself; a periodic task scheduled inside
 *       {@code Fencing.unfenced} writes after the section returned; {@code Fencing.bind(lease.token())} after that
 *       lease was closed; scopes closed out of order.</li>
 *   <li>{@code onlost}: lease B is taken while lease A is bound; B is stolen; B's first onLost callback blocks, its
 *       second reports its binding and tries a protected write.</li>
 *   <li>{@code ownthreads} (issue 25, item 2): leases A then B are taken on the main thread (A bound while B is
 *       acquired), renewed every 100 ms; the lease store's DataSource records the binding every store call sees
 *       on fenced's own threads, and the first renewal's call tries a protected write from there.</li>
 *   <li>{@code recurse}: a lease-bound method that calls itself on a pool thread ({@link PoolJob}).</li>
 * </ul>
 */
public final class LeakMain {

    private static String url;

    private LeakMain() {}

    static String write(int restaurant) {
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps =
                        c.prepareStatement("UPDATE totals SET amount = amount + 1 WHERE restaurant_id = ?")) {
            ps.setInt(1, restaurant);
            ps.executeUpdate();
            return "landed";
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    static void result(String scenario, String outcome) {
        System.out.println("result " + scenario + " " + outcome);
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        url = args[1];
        String raw = args[2];
        DriverManager.getConnection(url).close(); // the application opens its database at start
        switch (mode) {
            case "revoke":
                revoke(raw);
                break;
            case "onlost":
                onLost(raw);
                break;
            case "ownthreads":
                ownThreads(raw);
                break;
            case "recurse":
                PoolJob job = new PoolJob(url);
                result("levels", Integer.toString(job.recurse(2)));
                job.pool.shutdown();
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
        System.exit(0);
    }

    private static void revoke(String raw) throws Exception {
        ScheduledExecutorService scheduled = Executors.newScheduledThreadPool(1);

        result("periodic-after-scope", periodicAfter(scheduled, 1, true));
        result("periodic-after-unfenced", periodicAfter(scheduled, 2, false));

        FutureTask<String> prebuilt;
        try (FencingScope ignored = Fencing.bind(42)) {
            prebuilt = new FutureTask<>(() -> write(3));
        }
        Thread runner = new Thread(prebuilt);
        runner.start();
        result("prebuilt-futuretask-after-scope", prebuilt.get());

        if (Runtime.version().feature() >= 21) {
            String[] seen = new String[1];
            Thread vt;
            try (FencingScope ignored = Fencing.bind(42)) {
                Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
                vt = (Thread) Class.forName("java.lang.Thread$Builder")
                        .getMethod("unstarted", Runnable.class)
                        .invoke(builder, (Runnable) () -> seen[0] = write(4));
            }
            vt.start();
            vt.join();
            result("unstarted-virtual-thread-after-scope", seen[0]);
        }

        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(raw);
        try (LeaseManager leases = LeaseManager.create(ds)) {
            Lease lease = leases.acquire("leak-ended", Duration.ofSeconds(20), Duration.ofSeconds(20));
            long token = lease.token();
            lease.close();
            String outcome;
            try (FencingScope ignored = Fencing.bind(token)) {
                outcome = write(5);
            } catch (IllegalStateException e) {
                outcome = "bind-refused";
            }
            result("bind-token-of-ended-lease", outcome);

            // A task acquires a lease on a pooled worker and hands it back open; another thread closes it.
            ExecutorService worker = Executors.newSingleThreadExecutor();
            Lease elsewhere = worker.submit(
                            () -> leases.acquire("leak-elsewhere", Duration.ofSeconds(20), Duration.ofSeconds(20)))
                    .get();
            elsewhere.close();
            result(
                    "worker-after-lease-closed-elsewhere",
                    worker.submit(() -> MatrixMain.state() + "/" + write(9)).get());
            worker.shutdown();

            // Issue 25, item 4: another thread closes the lease first, then the acquiring thread closes it too.
            Lease twice = leases.acquire("leak-closed-twice", Duration.ofSeconds(20), Duration.ofSeconds(20));
            Thread closer = new Thread(twice::close, "closer");
            closer.start();
            closer.join();
            twice.close();
            result("acquirer-after-closed-elsewhere-then-own-close", MatrixMain.state() + "/" + write(8));
        }

        FencingScope outer = Fencing.bind(11);
        FencingScope inner = Fencing.bind(12);
        String closing;
        try {
            outer.close();
            closing = "closed";
        } catch (IllegalStateException e) {
            closing = "refused";
        }
        inner.close();
        result("scopes-closed-out-of-order", closing + "/" + MatrixMain.state() + "/" + write(6));
    }

    /**
     * Schedules a periodic write from inside a scope (token 42) or an unfenced section, waits for one run inside,
     * leaves, and returns the outcome of the first run that started after the scope or section ended.
     */
    private static String periodicAfter(ScheduledExecutorService scheduled, int restaurant, boolean token)
            throws Exception {
        BlockingQueue<String> afterwards = new LinkedBlockingQueue<>();
        CountDownLatch ranInside = new CountDownLatch(1);
        boolean[] ended = {false};
        Object lock = new Object();
        Runnable periodic = () -> {
            boolean after;
            synchronized (lock) {
                after = ended[0];
            }
            String outcome = write(restaurant);
            if (after) {
                afterwards.add(outcome);
            } else {
                ranInside.countDown();
            }
        };
        ScheduledFuture<?>[] f = new ScheduledFuture<?>[1];
        if (token) {
            try (FencingScope ignored = Fencing.bind(42)) {
                f[0] = scheduled.scheduleWithFixedDelay(periodic, 0, 10, TimeUnit.MILLISECONDS);
                ranInside.await();
            }
        } else {
            Fencing.unfenced(() -> {
                f[0] = scheduled.scheduleWithFixedDelay(periodic, 0, 10, TimeUnit.MILLISECONDS);
                ranInside.await();
                return null;
            });
        }
        synchronized (lock) {
            ended[0] = true;
        }
        String outcome = afterwards.poll(20, TimeUnit.SECONDS);
        f[0].cancel(false);
        return outcome == null ? "never-ran" : outcome;
    }

    private static void onLost(String raw) throws Exception {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(raw);
        BlockingQueue<String> second = new LinkedBlockingQueue<>();
        CountDownLatch release = new CountDownLatch(1);
        try (LeaseManager leases =
                LeaseManager.builder(ds).renewalInterval(Duration.ofMillis(300)).build()) {
            Lease a = leases.acquire("leak-a", Duration.ofSeconds(20), Duration.ofSeconds(20));
            Lease b = leases.acquire("leak-b", Duration.ofSeconds(20), Duration.ofSeconds(20));
            b.onLost(l -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            b.onLost(l -> second.add(MatrixMain.state() + "/" + write(7)));
            BlockingQueue<String> onlyCallback = new LinkedBlockingQueue<>();
            Lease lone = leases.acquire("leak-c", Duration.ofSeconds(20), Duration.ofSeconds(20));
            lone.onLost(l -> onlyCallback.add(MatrixMain.state() + "/a=" + a.token()));
            steal(raw, "leak-c"); // first alone: its callback cannot be held back by B's
            String only = onlyCallback.poll(20, TimeUnit.SECONDS);
            result("lone-onlost-callback", only == null ? "never-ran" : only);
            steal(raw, "leak-b");
            String seen = second.poll(20, TimeUnit.SECONDS);
            result("second-onlost-callback", seen == null ? "starved" : seen);
            release.countDown();
            lone.close();
            b.close();
            a.close();
        }
    }

    private static void ownThreads(String raw) throws Exception {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setURL(raw);
        List<String> seen = new CopyOnWriteArrayList<>();
        BlockingQueue<String> ownThreadWrite = new LinkedBlockingQueue<>();
        CountDownLatch renewals = new CountDownLatch(6);
        boolean[] acquired = {false};
        DataSource recording = (DataSource) Proxy.newProxyInstance(
                LeakMain.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        String thread = Thread.currentThread().getName();
                        seen.add(thread + "=" + MatrixMain.state());
                        boolean renewal;
                        synchronized (acquired) {
                            renewal = acquired[0];
                        }
                        if (renewal && thread.startsWith("fenced-") && ownThreadWrite.isEmpty()) {
                            ownThreadWrite.add(write(2));
                        }
                        if (renewal) {
                            renewals.countDown();
                        }
                    }
                    try {
                        return method.invoke(pg, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        try (LeaseManager leases = LeaseManager.builder(recording)
                .renewalInterval(Duration.ofMillis(100))
                .build()) {
            Lease a = leases.acquire("own-a", Duration.ofSeconds(20), Duration.ofSeconds(20));
            Lease b = leases.acquire("own-b", Duration.ofSeconds(20), Duration.ofSeconds(20));
            synchronized (acquired) {
                acquired[0] = true;
            }
            boolean renewed = renewals.await(20, TimeUnit.SECONDS);
            result("renewed", Boolean.toString(renewed));
            result("main-thread", MatrixMain.state().equals(Long.toString(b.token())) ? "b" : MatrixMain.state());
            b.close();
            a.close();
        }
        long withToken = seen.stream().filter(s -> !s.endsWith("=none")).count();
        result("store-calls", Integer.toString(seen.size()));
        result("store-calls-with-token", Long.toString(withToken));
        String write = ownThreadWrite.poll();
        result("own-thread-write", write == null ? "never-ran" : write);
        System.out.println("seen " + seen);
    }

    private static void steal(String raw, String lease) throws Exception {
        try (Connection c = DriverManager.getConnection(raw);
                PreparedStatement ps = c.prepareStatement("UPDATE fenced_lease SET holder = 'intruder',"
                        + " token = nextval('fenced_lease_token_seq') WHERE name = ?")) {
            ps.setString(1, lease);
            ps.executeUpdate();
        }
    }
}
