package dev.fenced.it.lease.fault;

import dev.fenced.LeaseManager;
import dev.fenced.it.support.FencedTestExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One seeded run of the fault suite: a PostgreSQL server it starts itself (asynchronous commit by default, as
 * the issue found it), a silent-stall proxy in front of it, N holders in child JVMs looping over M rows, and
 * a nemesis that, on a schedule drawn from the seed, freezes and kills holders, stalls, slows and resets the
 * network, SIGKILLs a backend (the postmaster then restarts every backend) or the whole server (a power cut and recovery), and
 * jumps the server's wall clock forward or back or makes it run fast or slow (libfaketime, where installed), and
 * exhausts the connections the holders need (the server's max_connections, or PgBouncer's pools). In the
 * standby topologies it also promotes the standby once (holders follow with a multi-host URL,
 * {@code targetServerType=primary}); see {@link Topology}.
 * Database-side triggers record every row version of the data (old and new token and value) and every change
 * of a lease row; the {@link Checker} judges the holders' histories against them.
 */
public final class FaultRun {

    /** What a run is made of. */
    public record Setup(
            long seed, boolean fenced, int holders, int rows, Duration ttl, Duration length, Topology topology) {}

    /** The servers the holders use and what sits between them and the holders (always the stalling proxy). */
    public enum Topology {
        SINGLE("one server"),
        ASYNC_STANDBY("a primary with an asynchronous streaming standby, promoted once after it lost WAL"),
        SYNC_STANDBY("a primary with a synchronous streaming standby (synchronous_standby_names), promoted once"),
        PGBOUNCER("one server behind PgBouncer in transaction pooling mode");

        public final String description;

        Topology(String description) {
            this.description = description;
        }

        boolean hasStandby() {
            return this == ASYNC_STANDBY || this == SYNC_STANDBY;
        }
    }

    /** A fault the nemesis injected: its kind, its target, and when (wall-clock µs). */
    public record Fault(String kind, String target, long startMicros, long endMicros) {}

    private final Setup setup;
    private final Path root;
    private final Random random;
    private PgServer server;
    private PgServer standby;
    private PgBouncer bouncer;
    private final List<StallingProxy> proxies = new ArrayList<>();
    private long promoteAtNanos = Long.MAX_VALUE;
    private final List<Holder> holders = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private long endMicros;
    private long clockOffsetMillis;

    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    public FaultRun(Setup setup, Path root) {
        this.setup = setup;
        this.root = root;
        this.random = new Random(setup.seed());
    }

    /** Runs the whole thing and returns the checker's verdict (the servers and holders are gone afterwards). */
    public Checker.Report run() throws Exception {
        try {
            endMicros = HolderMain.now() + setup.length().toNanos() / 1000;
            start();
            long begin = System.nanoTime();
            long end = begin + setup.length().toNanos();
            if (setup.topology().hasStandby()) {
                // once, between 30 % and 60 % of the run: holders work on the old primary first, the new one after
                promoteAtNanos = begin + setup.length().toNanos() * (30 + random.nextInt(31)) / 100;
            }
            while (System.nanoTime() < end) {
                sleepMillis(300 + random.nextInt(1200));
                if (System.nanoTime() < end) {
                    try {
                        awaitServer(); // an earlier crash's recovery may still be running
                        if (System.nanoTime() >= promoteAtNanos) {
                            promoteAtNanos = Long.MAX_VALUE;
                            promote();
                        } else {
                            injectOne();
                        }
                    } catch (SQLException busy) {
                        // the server went into recovery under our feet: this fault is skipped, the schedule goes on
                    }
                }
            }
            proxies.forEach(StallingProxy::heal);
            for (Holder h : holders) {
                h.cont();
            }
            for (Holder h : holders) {
                h.awaitExit(Duration.ofSeconds(30));
            }
            return new Checker(setup, faults, histories(), server).check();
        } finally {
            for (Holder h : holders) {
                h.kill();
            }
            for (StallingProxy p : proxies) {
                p.close();
            }
            if (bouncer != null) {
                bouncer.close();
            }
            if (standby != null) {
                standby.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    private void start() throws Exception {
        PgServer s = PgServer.init(root.resolve("data"), Map.of("synchronous_commit", "off", "max_connections", "120"));
        if (Files.exists(LIBFAKETIME)) {
            // The server's wall clock can be jumped forward by the nemesis (its monotonic clock stays true).
            Files.writeString(clockOffset(), "+0\n");
            s = s.withEnv(Map.of(
                    "LD_PRELOAD",
                    LIBFAKETIME.toString(),
                    "FAKETIME_TIMESTAMP_FILE",
                    clockOffset().toString(),
                    "FAKETIME_CACHE_DURATION",
                    "1",
                    "FAKETIME_DONT_FAKE_MONOTONIC",
                    "1"));
        }
        server = s.start();
        if (setup.topology().hasStandby()) {
            // the walreceiver retries soon after a primary restart, so synchronous commits do not wait 5 s
            standby = server.startStandby(root.resolve("standby"), Map.of("wal_retrieve_retry_interval", "'200ms'"));
            if (setup.topology() == Topology.SYNC_STANDBY) {
                server.execute("ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()");
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!Boolean.TRUE.equals(
                        server.query("SELECT count(*) = 1 FROM pg_stat_replication WHERE sync_state = 'sync'"))) {
                    if (System.nanoTime() > until) {
                        throw new IllegalStateException("the standby did not become synchronous: " + standby.log());
                    }
                    sleepMillis(20);
                }
            }
        }
        server.execute(
                "CREATE TABLE cells (id int PRIMARY KEY, val bigint NOT NULL, last_token bigint)",
                "INSERT INTO cells SELECT g, 0, NULL FROM generate_series(1, " + setup.rows() + ") g",
                "CREATE TABLE audit (seq bigserial PRIMARY KEY, id int, old_token bigint, new_token bigint,"
                        + " old_val bigint, new_val bigint, at timestamptz NOT NULL DEFAULT clock_timestamp())",
                "CREATE FUNCTION audit_cells() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " INSERT INTO audit (id, old_token, new_token, old_val, new_val)"
                        + " VALUES (NEW.id, OLD.last_token, NEW.last_token, OLD.val, NEW.val); RETURN NEW; END $$",
                "CREATE TRIGGER audit_cells AFTER UPDATE ON cells FOR EACH ROW EXECUTE FUNCTION audit_cells()");
        try (LeaseManager setupLeases = LeaseManager.create(server.dataSource())) {
            setupLeases.tryAcquire("setup", Duration.ofSeconds(1)).orElseThrow().close(); // creates the store
        } finally {
            FencedTestExtension.unbind();
        }
        server.execute(
                "CREATE TABLE lease_audit (seq bigserial PRIMARY KEY, name text, token bigint, holder text,"
                        + " kind text, expires_at timestamptz, at timestamptz NOT NULL DEFAULT clock_timestamp())",
                "CREATE FUNCTION audit_lease() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " INSERT INTO lease_audit (name, token, holder, kind, expires_at) VALUES (NEW.name, NEW.token,"
                        + " NEW.holder, CASE WHEN TG_OP = 'INSERT' OR OLD.token <> NEW.token THEN 'grant'"
                        + " WHEN NEW.expires_at = '-infinity' THEN 'release' ELSE 'renew' END, NEW.expires_at);"
                        + " RETURN NEW; END $$",
                "CREATE TRIGGER audit_lease AFTER INSERT OR UPDATE ON fenced_lease FOR EACH ROW EXECUTE FUNCTION audit_lease()");
        if (setup.topology() == Topology.PGBOUNCER) {
            bouncer = PgBouncer.start(root.resolve("pgbouncer"), server.port());
            proxies.add(new StallingProxy(bouncer.port()));
        } else {
            proxies.add(new StallingProxy(server.port()));
            if (standby != null) {
                proxies.add(new StallingProxy(standby.port()));
            }
        }
        for (int i = 0; i < setup.holders(); i++) {
            holders.add(startHolder(i, 0));
        }
    }

    private Path clockOffset() {
        return root.resolve("faketime");
    }

    private Holder startHolder(int index, int generation) throws IOException {
        String hosts = String.join(
                ",", proxies.stream().map(p -> "127.0.0.1:" + p.port()).toList());
        // Standby topologies: every host is listed, the primary is found (and found again after a promotion).
        String follow = setup.topology().hasStandby() ? "&targetServerType=primary&hostRecheckSeconds=1" : "";
        // PgBouncer 1.18 in transaction mode keeps no server-side prepared statement of a client.
        String pooled = bouncer != null ? "&prepareThreshold=0" : "";
        String timeouts = "&connectTimeout=3&loginTimeout=3&socketTimeout=5";
        // The data is committed synchronously (its owner's choice, not fenced's): a crash must lose no
        // acknowledged write. The lease store keeps the server's asynchronous default: fenced makes its grants
        // durable itself. Through PgBouncer the data has a pooled database of its own that sets it.
        String data = bouncer != null
                ? "jdbc:postgresql://" + hosts + "/" + PgBouncer.DATA + "?user=postgres" + pooled + timeouts
                : "jdbc:postgresql://" + hosts + "/postgres?user=postgres" + follow + timeouts
                        + "&options=-c%20synchronous_commit%3Don";
        String dataUrl =
                setup.fenced() ? "jdbc:fenced:" + data.substring("jdbc:".length()) + "&fenced.tables=cells" : data;
        String storeUrl = "jdbc:postgresql://" + hosts + "/postgres?user=postgres" + follow + pooled;
        String id = index + "." + generation;
        Path history = root.resolve("history-" + id + ".log");
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                HolderMain.class.getName(),
                id,
                Long.toString(setup.seed() * 1000 + index * 10 + generation),
                setup.fenced() ? "fenced" : "control",
                storeUrl,
                dataUrl,
                Integer.toString(setup.rows()),
                Long.toString(setup.ttl().toMillis()),
                Long.toString(endMicros),
                history.toString());
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        root.resolve("holder-" + id + ".out").toFile()))
                .start();
        return new Holder(index, generation, p, history);
    }

    private void injectOne() throws Exception {
        int pick = random.nextInt(100);
        long start = HolderMain.now();
        boolean clock = Files.exists(clockOffset());
        if (pick < 40) {
            Holder h = holders.get(random.nextInt(holders.size()));
            // Two pauses in three at a chosen point: the holder has read and not yet sent its write.
            boolean atPoint = random.nextInt(3) > 0;
            long ms = atPoint
                    ? setup.ttl().toMillis() + random.nextInt((int) setup.ttl().toMillis() * 2)
                    : 200 + random.nextInt((int) setup.ttl().toMillis() * 3);
            if (atPoint && !h.awaitLine("read ", Duration.ofSeconds(3))) {
                return;
            }
            start = HolderMain.now();
            h.stop();
            sleepMillis(ms);
            h.cont();
            faults.add(new Fault(
                    atPoint ? "SIGSTOP holder before its write" : "SIGSTOP holder",
                    "holder " + h.id(),
                    start,
                    HolderMain.now()));
        } else if (pick < 49) {
            int i = random.nextInt(holders.size());
            Holder h = holders.get(i);
            h.kill();
            holders.set(i, startHolder(i, h.generation + 1));
            faults.add(new Fault("SIGKILL holder", "holder " + h.id(), start, HolderMain.now()));
        } else if (pick < 54 && clock) {
            // The database clock jumps forward: leases end early there, while their holders still count.
            long jumpMs = 50 + random.nextInt((int) setup.ttl().toMillis());
            shiftClock(jumpMs);
            faults.add(new Fault("server clock jump forward", "+" + jumpMs + " ms", start, HolderMain.now()));
        } else if (pick < 57 && clock) {
            // Back: leases end late there (their holders stop early, which is safe); now() repeats earlier values.
            long jumpMs = 50 + random.nextInt((int) setup.ttl().toMillis());
            shiftClock(-jumpMs);
            faults.add(new Fault("server clock jump backward", "-" + jumpMs + " ms", start, HolderMain.now()));
        } else if (pick < 61 && clock) {
            // A rate: the clock runs 5 to 25 % fast or slow for 2 to 5 s. libfaketime rereads its file once a
            // second, so the rate is applied as one step of (rate - 1) s each second.
            int percent = (5 + random.nextInt(21)) * (random.nextBoolean() ? 1 : -1);
            int seconds = 2 + random.nextInt(4);
            for (int i = 0; i < seconds; i++) {
                shiftClock(percent * 10L);
            }
            faults.add(new Fault(
                    "server clock drift",
                    String.format("x%.2f for %d s", 1 + percent / 100.0, seconds),
                    start,
                    HolderMain.now()));
        } else if (pick < 68) {
            long ms = 300 + random.nextInt((int) setup.ttl().toMillis() * 2);
            proxies.forEach(StallingProxy::stall);
            sleepMillis(ms);
            proxies.forEach(StallingProxy::heal);
            faults.add(new Fault("network stall", "proxy", start, HolderMain.now()));
        } else if (pick < 71) {
            // Latency: every message waits, in both directions, for one to two ttl; a round trip may take longer
            // than a holder's whole lease, so writes reach the database late and renewals answer late.
            long delay = 20 + random.nextInt((int) setup.ttl().toMillis() / 3);
            long ms = setup.ttl().toMillis() + random.nextInt((int) setup.ttl().toMillis());
            proxies.forEach(p -> p.delay(delay));
            sleepMillis(ms);
            proxies.forEach(p -> p.delay(0));
            faults.add(
                    new Fault("network latency", delay + " ms per message for " + ms + " ms", start, HolderMain.now()));
        } else if (pick < 73) {
            proxies.forEach(StallingProxy::reset);
            faults.add(new Fault("network reset", "every open connection", start, HolderMain.now()));
        } else if (pick < 79) {
            long ms = 500 + random.nextInt((int) setup.ttl().toMillis() * 2);
            try (ConnectionHog hog = bouncer != null
                    ? ConnectionHog.pinPools(
                            List.of(bouncer.url("postgres"), bouncer.url(PgBouncer.DATA)), PgBouncer.POOL_SIZE)
                    : ConnectionHog.fill(server.url("postgres"))) {
                sleepMillis(ms);
                faults.add(new Fault(
                        bouncer != null
                                ? "pool exhaustion (PgBouncer's pools pinned)"
                                : "pool exhaustion (max_connections reached)",
                        hog.size() + " connections",
                        start,
                        HolderMain.now()));
            }
        } else if (pick < 90) {
            Object pid = server.query("SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'"
                    + " AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1");
            if (pid != null) {
                new ProcessBuilder("kill", "-KILL", pid.toString()).start().waitFor();
                sleepMillis(200); // the postmaster notices the crash and resets every backend
                awaitServer();
                faults.add(new Fault("SIGKILL backend", "pid " + pid, start, HolderMain.now()));
            }
        } else {
            server.killAll();
            server.start();
            faults.add(new Fault("SIGKILL postmaster", "server", start, HolderMain.now()));
        }
    }

    /** Moves the server's wall clock by {@code ms} and waits until libfaketime has reread its file (once a second). */
    private void shiftClock(long ms) throws IOException, InterruptedException {
        clockOffsetMillis += ms;
        Files.writeString(clockOffset(), String.format("%+.3f%n", clockOffsetMillis / 1000.0));
        sleepMillis(1100);
    }

    /**
     * The standby takes over. Asynchronous: it is first cut off from the primary (stopped) while the holders go
     * on for 0.5 to 1.5 s on the primary, whose WAL of that time it never receives; then the primary dies (a
     * power cut) and the standby, restarted, is promoted. Synchronous: the primary dies and the standby, which
     * has every acknowledged commit, is promoted. The old primary stays dead.
     */
    private void promote() throws Exception {
        long start = HolderMain.now();
        String target;
        if (setup.topology() == Topology.ASYNC_STANDBY) {
            long ms = 500 + random.nextInt(1000);
            standby.stop();
            sleepMillis(ms);
            server.killAll();
            standby.start();
            target = "standby cut off " + ms + " ms before the primary died";
        } else {
            server.killAll();
            target = "primary died";
        }
        standby.promote();
        server = standby;
        standby = null;
        faults.add(new Fault(Checker.PROMOTION, target, start, HolderMain.now()));
    }

    /** After a backend's SIGKILL the postmaster resets every backend; wait until it accepts connections again. */
    private void awaitServer() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            try (Connection c = DriverManager.getConnection(server.url("postgres"));
                    Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                return;
            } catch (SQLException e) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("the server did not come back: " + server.log());
    }

    private List<Path> histories() throws IOException {
        try (var files = Files.list(root)) {
            return files.filter(f -> f.getFileName().toString().startsWith("history-"))
                    .sorted()
                    .toList();
        }
    }

    private static void sleepMillis(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    private static final class Holder {
        final int index;
        final int generation;
        final Process process;
        final Path history;

        Holder(int index, int generation, Process process, Path history) {
            this.index = index;
            this.generation = generation;
            this.process = process;
            this.history = history;
        }

        /** The id its history lines carry. */
        String id() {
            return index + "." + generation;
        }

        void stop() throws IOException, InterruptedException {
            signal("STOP");
        }

        void cont() throws IOException, InterruptedException {
            signal("CONT");
        }

        private void signal(String name) throws IOException, InterruptedException {
            if (process.isAlive()) {
                new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                        .start()
                        .waitFor();
            }
        }

        /** Waits until the holder's history gets a new line starting with {@code prefix}; false if none in time. */
        boolean awaitLine(String prefix, Duration within) throws IOException, InterruptedException {
            long from = Files.exists(history) ? Files.size(history) : 0;
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end) {
                long size = Files.exists(history) ? Files.size(history) : 0;
                if (size > from) {
                    byte[] fresh = new byte[(int) (size - from)];
                    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(history.toFile(), "r")) {
                        f.seek(from);
                        f.readFully(fresh);
                    }
                    for (String line : new String(fresh, java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                        if (line.startsWith(prefix)) {
                            return true;
                        }
                    }
                    from = size;
                }
                Thread.sleep(2);
            }
            return false;
        }

        void awaitExit(Duration d) throws InterruptedException {
            process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
        }

        void kill() throws InterruptedException {
            if (process.isAlive()) {
                try {
                    cont();
                } catch (IOException ignored) {
                    // dying anyway
                }
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
