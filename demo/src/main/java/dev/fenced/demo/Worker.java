package dev.fenced.demo;

import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One node of the job's cluster. It takes triggers from the work queue; each restaurant's run is
 * triggered on two workers at once, and the lease decides who runs it: the other waits for the lease and
 * then finds the run done. A careful holder: it checks that its lease is still valid right before the
 * write, and writes a whole new total. The freeze comes after that check, as in the article: "a pause can
 * come right after the check".
 */
final class Worker implements Runnable {

    private final String name;
    private final DataSource db;
    /** The second database's pool, or null when the job writes one. */
    private final DataSource ledger;

    private final LeaseManager leases;
    private final Freezer freezer;
    private final Options options;
    private final Duration ttl;
    private final Duration maxWait;

    Worker(String name, DataSource db, DataSource ledger, LeaseManager leases, Freezer freezer, Options options) {
        this.name = name;
        this.db = db;
        this.ledger = ledger;
        this.leases = leases;
        this.freezer = freezer;
        this.options = options;
        this.ttl = options.scaled(options.lease);
        this.maxWait = options.scaled(options.lease + options.pause + options.slowRun);
    }

    @Override
    public void run() {
        try {
            Integer restaurant;
            while ((restaurant = claim()) != null) {
                runOnce(restaurant);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("worker " + name + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next trigger, or null when the night's work is handed out. */
    private Integer claim() throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "DELETE FROM work WHERE seq = (SELECT seq FROM work ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)"
                                + " RETURNING restaurant_id");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getInt(1) : null;
        }
    }

    private void runOnce(int restaurant) throws SQLException, InterruptedException {
        Lease lease;
        try {
            lease = leases.acquire("restaurant-" + restaurant, ttl, maxWait);
        } catch (FencingException e) {
            if (FencingException.LEASE_TIMEOUT.equals(e.getSQLState())) {
                return; // another node kept it: its run, not ours
            }
            throw e;
        }
        try (lease) {
            if (isDone(restaurant)) {
                return;
            }
            Run run = new Run(restaurant, lease.token(), name);
            run.attempt = start(run);
            RunPlan plan = RunPlan.of(options, restaurant, run.attempt);
            run.slow = plan.slow();
            read(run);
            Thread.sleep(plan.work().toMillis());
            if (!lease.isValid()) {
                run.outcome = "gave-up";
                finish(run);
                retryLater(restaurant);
                return;
            }
            if (plan.freeze() == RunPlan.Freeze.BEFORE_WRITE) {
                run.freeze = plan.freeze();
                run.pauseFrom = System.currentTimeMillis();
                freezer.freeze(plan.pauseLength().toMillis());
                run.pauseTo = System.currentTimeMillis();
            }
            write(run, plan);
            if ("written".equals(run.outcome)) {
                markDone(run);
            }
            finish(run);
            if (!"written".equals(run.outcome)) {
                retryLater(restaurant); // usually the newer holder has done it; the retry then finds it done
            }
        }
    }

    /** What the audit needs of one run. */
    static final class Run {
        final int restaurant;
        final long token;
        final String worker;
        final long acquiredAt = System.currentTimeMillis();
        int attempt;
        boolean slow;
        RunPlan.Freeze freeze = RunPlan.Freeze.NONE;
        Long pauseFrom;
        Long pauseTo;
        Long writeAt;
        long asOfOrder;
        long amount;
        String outcome = "running";

        Run(int restaurant, long token, String worker) {
            this.restaurant = restaurant;
            this.token = token;
            this.worker = worker;
        }
    }

    /** A holder that stopped without writing leaves the run to someone else: the trigger goes back, as a scheduler would retry. */
    private void retryLater(int restaurant) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO work (restaurant_id) VALUES (?)")) {
            ps.setInt(1, restaurant);
            ps.executeUpdate();
        }
    }

    private boolean isDone(int restaurant) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT 1 FROM done WHERE restaurant_id = ?")) {
            ps.setInt(1, restaurant);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Records the start; returns which attempt at this restaurant it is (1 for the first holder). */
    private int start(Run run) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO runs (token, restaurant_id, worker, slow, paused, acquired_at, ended_at, outcome)"
                                + " VALUES (?, ?, ?, false, false, ?, ?, 'running')")) {
            ps.setLong(1, run.token);
            ps.setInt(2, run.restaurant);
            ps.setString(3, run.worker);
            ps.setLong(4, run.acquiredAt);
            ps.setLong(5, run.acquiredAt);
            ps.executeUpdate();
        }
        try (Connection c = db.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT count(*) FROM runs WHERE restaurant_id = ? AND token <= ?")) {
            ps.setInt(1, run.restaurant);
            ps.setLong(2, run.token);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private void read(Run run) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT coalesce(sum(amount), 0), coalesce(max(id), 0) FROM orders WHERE restaurant_id = ?")) {
            ps.setInt(1, run.restaurant);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                run.amount = rs.getLong(1);
                run.asOfOrder = rs.getLong(2);
            }
        }
    }

    /**
     * The article's write: a whole new value. Under fenced it carries the lease's token. An in-flight freeze
     * is armed last, so nothing but this statement's own bytes are held.
     */
    private void write(Run run, RunPlan plan) throws SQLException {
        run.writeAt = System.currentTimeMillis();
        try (Connection c = db.getConnection();
                PreparedStatement ps = totalOf(c, "totals", run)) {
            if (plan.freeze() == RunPlan.Freeze.IN_FLIGHT) {
                run.freeze = plan.freeze();
                run.pauseFrom = System.currentTimeMillis();
                NetworkStall.arm(plan.pauseLength().toMillis(), freezer);
            }
            try {
                ps.executeUpdate();
            } finally {
                NetworkStall.disarm();
                if (run.freeze == RunPlan.Freeze.IN_FLIGHT) {
                    run.pauseTo = Math.max(run.pauseFrom, System.currentTimeMillis());
                    run.writeAt = run.pauseTo; // when the write reached the database
                }
            }
            if (ledger != null) {
                copyToLedger(run);
            }
            run.outcome = "written";
        } catch (StaleTokenException e) {
            run.outcome = "refused-stale";
        } catch (LeaseLostException e) {
            run.outcome = "refused-lost";
        }
    }

    /**
     * The same total into the ledger database, under the same lease: its rows are fenced by the same token, so a
     * stale holder is refused there too, by the ledger's own rows.
     */
    private void copyToLedger(Run run) throws SQLException {
        try (Connection c = ledger.getConnection();
                PreparedStatement ps = totalOf(c, "ledger", run)) {
            ps.executeUpdate();
        }
    }

    /** The run's whole new total for its restaurant in {@code table}, ready to execute. */
    private static PreparedStatement totalOf(Connection c, String table, Run run) throws SQLException {
        PreparedStatement ps =
                c.prepareStatement("UPDATE " + table + " SET amount = ?, as_of_order = ? WHERE restaurant_id = ?");
        ps.setLong(1, run.amount);
        ps.setLong(2, run.asOfOrder);
        ps.setInt(3, run.restaurant);
        return ps;
    }

    private void markDone(Run run) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO done (restaurant_id, token, worker) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
            ps.setInt(1, run.restaurant);
            ps.setLong(2, run.token);
            ps.setString(3, run.worker);
            ps.executeUpdate();
        }
    }

    private void finish(Run run) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE runs SET slow = ?, paused = ?, pause_from = ?, pause_to = ?, write_at = ?, ended_at = ?,"
                                + " as_of_order = ?, amount = ?, outcome = ?, freeze_kind = ? WHERE token = ?")) {
            ps.setBoolean(1, run.slow);
            ps.setBoolean(2, run.freeze != RunPlan.Freeze.NONE);
            ps.setObject(3, run.pauseFrom, java.sql.Types.BIGINT);
            ps.setObject(4, run.pauseTo, java.sql.Types.BIGINT);
            ps.setObject(5, run.writeAt, java.sql.Types.BIGINT);
            ps.setLong(6, System.currentTimeMillis());
            ps.setLong(7, run.asOfOrder);
            ps.setLong(8, run.amount);
            ps.setString(9, run.outcome);
            ps.setString(
                    10, run.freeze.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            ps.setLong(11, run.token);
            ps.executeUpdate();
        }
    }
}
