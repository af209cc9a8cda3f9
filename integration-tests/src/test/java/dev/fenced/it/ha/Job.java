package dev.fenced.it.ha;

import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.HaCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The application, as a team runs it against a PostgreSQL HA cluster (Patroni, pg_auto_failover): {@value #INSTANCES} instances of one job, each with its own
 * {@link LeaseManager} on pgjdbc's multi-host URL ({@code targetServerType=primary}), taking turns at lease
 * {@value #LEASE}. The instance holding it writes the protected row of table {@code job} in a loop (a sequence number
 * per write, about 30 a second), through the fenced driver on the same multi-host URL, and keeps writing through
 * connection errors until the driver or the database refuses it; then it lets the lease go and contends again. A
 * trigger records every row version in {@code job_audit} (same transaction): what survived a failover is read there.
 * Every grant, acknowledged write and refusal is recorded with its time ({@link System#nanoTime()}).
 */
final class Job implements AutoCloseable {

    static final String LEASE = "nightly-job";
    static final int INSTANCES = 2;
    /** Shorter than any failover here, so the holder at the fault loses its lease and the job moves on. */
    static final Duration LEASE_TTL = Duration.ofMillis(1500);

    record Grant(String instance, long token, long at) {}

    record Ack(long seq, long token, long sent, long at) {}

    record Refusal(String instance, long token, String kind, long at) {}

    private final String dataUrl;
    private final AtomicLong seq = new AtomicLong();
    private final List<Grant> grants = new CopyOnWriteArrayList<>();
    private final List<Ack> acks = new CopyOnWriteArrayList<>();
    private final List<Refusal> refusals = new CopyOnWriteArrayList<>();
    private final List<long[]> failures = new CopyOnWriteArrayList<>(); // {at}: a write that did not get through
    private final CountDownLatch stop = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();
    private final List<LeaseManager> managers = new ArrayList<>();

    private Job(String dataUrl) {
        this.dataUrl = dataUrl;
    }

    /** Creates the tables on the cluster's primary and starts the instances. */
    static Job start(HaCluster<?> cluster) throws SQLException {
        // short timeouts: a dead host must not hold a write or a renewal for long
        String timeouts = "connectTimeout=2&loginTimeout=2&socketTimeout=5&hostRecheckSeconds=1";
        try (Connection c = DriverManager.getConnection(cluster.multiHostUrl(timeouts));
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE job (id int PRIMARY KEY, val bigint NOT NULL, last_token bigint)");
            s.execute("INSERT INTO job VALUES (1, 0, NULL)");
            s.execute("CREATE TABLE job_audit (seq bigserial PRIMARY KEY, old_token bigint, new_token bigint,"
                    + " val bigint, at timestamptz NOT NULL DEFAULT clock_timestamp())");
            s.execute("CREATE FUNCTION audit_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " INSERT INTO job_audit (old_token, new_token, val) VALUES (OLD.last_token, NEW.last_token,"
                    + " NEW.val); RETURN NEW; END $$");
            s.execute("CREATE TRIGGER audit_job AFTER UPDATE ON job FOR EACH ROW EXECUTE FUNCTION audit_job()");
        }
        Job job = new Job(
                "jdbc:fenced:" + cluster.multiHostUrl(timeouts).substring("jdbc:".length()) + "&fenced.tables=job");
        for (int i = 1; i <= INSTANCES; i++) {
            PGSimpleDataSource store = new PGSimpleDataSource();
            store.setURL(cluster.multiHostUrl(timeouts));
            LeaseManager leases = LeaseManager.builder(store)
                    .holder("app-" + i)
                    .storeTimeout(Duration.ofSeconds(2))
                    .build();
            job.managers.add(leases);
            String name = "app-" + i;
            Thread t = new Thread(() -> job.run(name, leases), name);
            t.setDaemon(true);
            job.threads.add(t);
        }
        job.threads.forEach(Thread::start);
        return job;
    }

    /** The protected write's URL: the fenced driver on the multi-host URL, table {@code job} protected. */
    String dataUrl() {
        return dataUrl;
    }

    private void run(String instance, LeaseManager leases) {
        try {
            while (stop.getCount() > 0) {
                Lease lease;
                try {
                    lease = leases.acquire(LEASE, LEASE_TTL, Duration.ofSeconds(2));
                } catch (SQLException e) {
                    stop.await(50, TimeUnit.MILLISECONDS); // held by the other instance, or no primary yet
                    continue;
                }
                try (lease) {
                    grants.add(new Grant(instance, lease.token(), System.nanoTime()));
                    writeWhileAllowed(instance, lease.token());
                }
                FencedTestExtension.unbind();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes until fenced refuses (the lease lost: the driver; a stale token: the database) or the job stops. */
    private void writeWhileAllowed(String instance, long token) throws InterruptedException {
        while (!stop.await(30, TimeUnit.MILLISECONDS)) {
            long n = seq.incrementAndGet();
            long sent = System.nanoTime();
            try (Connection c = DriverManager.getConnection(dataUrl);
                    PreparedStatement ps = c.prepareStatement("UPDATE job SET val = ? WHERE id = 1")) {
                ps.setLong(1, n);
                if (ps.executeUpdate() == 1) {
                    acks.add(new Ack(n, token, sent, System.nanoTime()));
                }
            } catch (LeaseLostException e) {
                refusals.add(new Refusal(instance, token, "lease lost (driver)", System.nanoTime()));
                return;
            } catch (StaleTokenException e) {
                refusals.add(new Refusal(instance, token, "stale token (database)", System.nanoTime()));
                return;
            } catch (SQLException e) {
                failures.add(new long[] {sent}); // no primary yet (57P01, 08001...): the job retries
            }
        }
    }

    List<Grant> grants() {
        return List.copyOf(grants);
    }

    List<Ack> acks() {
        return List.copyOf(acks);
    }

    List<Refusal> refusals() {
        return List.copyOf(refusals);
    }

    long failuresBetween(long from, long to) {
        return failures.stream().filter(f -> f[0] - from >= 0 && to - f[0] > 0).count();
    }

    /** Stops the instances (each releases its lease if it still can). */
    @Override
    public void close() throws InterruptedException {
        stop.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(15));
        }
        managers.forEach(LeaseManager::close);
    }
}
