package dev.fenced.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.LeaseManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/** One mode's night on a database of its own: schema, order feed, workers, progress, audit. */
final class ModeRun {

    private final DemoServer server;
    private final Options options;
    private final Options.Mode mode;
    private final Progress progress;

    ModeRun(DemoServer server, Options options, Options.Mode mode, Progress progress) {
        this.server = server;
        this.options = options;
        this.mode = mode;
        this.progress = progress;
    }

    /**
     * The token domain of the lease when the job writes two databases: one lease table (in the orders database)
     * draws the tokens, and both databases' protected tables take them (a lease table's own domain would fence
     * its own database only).
     */
    static final String SHARED_DOMAIN = "nightly";

    /**
     * The fenced URL for a plain one: {@code table} protected, enforced only in the fenced mode, of the shared
     * token domain when the job writes more than one database.
     */
    static String fencedUrl(String jdbcUrl, Options.Mode mode, String table, Options options) {
        String fenced = "jdbc:fenced:" + jdbcUrl.substring("jdbc:".length());
        return fenced + (fenced.contains("?") ? "&" : "?") + "fenced.tables=" + table + "&fenced.mode="
                + (mode.fenced ? "enforce" : "off") + "&socketFactory=" + NetworkStall.class.getName()
                + (options.databases > 1 ? "&fenced.tokenDomain=" + SHARED_DOMAIN : "");
    }

    static HikariDataSource pool(String fencedUrl, int size, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(fencedUrl);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(Math.min(size, 4));
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    /** A lease manager for one worker, renewing (or not) as the mode says. */
    static LeaseManager leases(DataSource db, String holder, Options options, Options.Mode mode) {
        LeaseManager.Builder b = LeaseManager.builder(db).holder(holder);
        if (options.databases > 1) {
            b.tokenDomain(SHARED_DOMAIN);
        }
        if (mode.renew) {
            b.renewalInterval(options.scaled(options.renew));
        } else {
            b.withoutRenewal();
        }
        return b.build();
    }

    // the feed is stopped by hand before the audit, and again (a no-op) when the block ends on an error
    @SuppressWarnings("try")
    ModeResult run() throws Exception {
        String url = server.newDatabase(mode.key);
        try (Connection c = DriverManager.getConnection(url)) {
            Schema.create(c, options.restaurants, options.randomSeed);
        }
        String fencedUrl = fencedUrl(url, mode, "totals", options);
        String ledgerUrl = null;
        if (options.databases > 1) {
            ledgerUrl = server.newDatabase(mode.key + "-ledger");
            try (Connection c = DriverManager.getConnection(ledgerUrl)) {
                Schema.createLedger(c, options.restaurants);
            }
        }
        String ledgerFencedUrl = ledgerUrl == null ? null : fencedUrl(ledgerUrl, mode, "ledger", options);
        long renewalsBefore = FencedStats.counters().get("fenced.leases.renewed");
        long failedBefore = FencedStats.counters().get("fenced.leases.renewals_failed");
        long started = System.nanoTime();
        ModeResult result;
        try (HikariDataSource pool = pool(fencedUrl, options.workers * 2 + 4, "demo-" + mode.key);
                HikariDataSource ledger = ledgerFencedUrl == null
                        ? null
                        : pool(ledgerFencedUrl, options.workers * 2 + 4, "demo-ledger-" + mode.key);
                OrderFeed feed = new OrderFeed(url, options.restaurants, options.ordersPerSecond)) {
            try (LeaseManager setup = LeaseManager.create(pool)) {
                setup.tryAcquire("setup", options.scaled(options.lease)).ifPresent(l -> l.close());
            }
            long[] counters = options.processes > 0
                    ? runProcesses(url, fencedUrl, ledgerFencedUrl)
                    : runThreads(pool, ledger, url);
            feed.close();
            try (Connection c = DriverManager.getConnection(url)) {
                result = Audit.count(c, mode);
                result.incident = Incident.find(c, mode);
                if (ledgerUrl != null) {
                    try (Connection l = DriverManager.getConnection(ledgerUrl)) {
                        result.wrongLedger = Audit.wrongLedger(c, l);
                    }
                }
            }
            if (options.processes > 0) {
                result.renewals = counters[0];
                result.failedRenewals = counters[1];
            } else {
                result.renewals = FencedStats.counters().get("fenced.leases.renewed") - renewalsBefore;
                result.failedRenewals = FencedStats.counters().get("fenced.leases.renewals_failed") - failedBefore;
            }
        }
        result.seconds = (System.nanoTime() - started) / 1_000_000_000L;
        return result;
    }

    private long[] runThreads(DataSource pool, DataSource ledger, String url) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<LeaseManager> managers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < options.workers; i++) {
            String name = "worker-" + (i + 1);
            GatedDataSource gate = new GatedDataSource(pool);
            LeaseManager leases = leases(gate, name, options, mode);
            managers.add(leases);
            Thread t = new Thread(new Worker(name, gate, ledger, leases, gate, options), name);
            t.setUncaughtExceptionHandler((th, e) -> failure.compareAndSet(null, e));
            threads.add(t);
        }
        threads.forEach(Thread::start);
        watch(url, () -> threads.stream().anyMatch(Thread::isAlive));
        for (Thread t : threads) {
            t.join();
        }
        managers.forEach(LeaseManager::close);
        if (failure.get() != null) {
            throw new IllegalStateException("a worker failed: " + failure.get().getMessage(), failure.get());
        }
        return new long[] {0, 0};
    }

    private long[] runProcesses(String url, String fencedUrl, String ledgerFencedUrl) throws Exception {
        try (ProcessFleet fleet = ProcessFleet.start(options, mode, fencedUrl, ledgerFencedUrl)) {
            watch(url, fleet::running);
            return fleet.awaitCounters();
        }
    }

    /** Redraws the progress bar until {@code busy} turns false. */
    private void watch(String url, java.util.function.BooleanSupplier busy) throws SQLException, InterruptedException {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            do {
                try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM done), (SELECT count(*) FROM runs)")) {
                    rs.next();
                    progress.show(mode.key, rs.getLong(1), options.restaurants, rs.getLong(2));
                }
                Thread.sleep(250);
            } while (busy.getAsBoolean());
            try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM done), (SELECT count(*) FROM runs)")) {
                rs.next();
                progress.show(mode.key, rs.getLong(1), options.restaurants, rs.getLong(2));
            }
            progress.finish();
        }
    }
}
