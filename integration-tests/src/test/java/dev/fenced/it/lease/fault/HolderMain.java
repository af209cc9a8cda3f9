package dev.fenced.it.lease.fault;

import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import dev.fenced.internal.lease.LeaseDeadlines;
import dev.fenced.it.support.FencedTestExtension;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One holder of the fault suite, in a JVM of its own (so the nemesis can SIGSTOP and SIGKILL it): loops
 * grant, read, compute, write a whole new value under the token, release; every step is a line in its history
 * file, written unbuffered so a SIGKILL loses at most the line being written. Times are wall-clock
 * microseconds (all processes share one host clock), for ordering against faults.
 *
 * <p>Modes: {@code fenced} writes through the fenced driver (the token guards the row); {@code control}
 * writes through plain pgjdbc with the lease alone (it records its token in the row without any guard), the run
 * that shows the faults bite.
 *
 * <p>Besides grants, reads and writes, the history records each write's {@code System.nanoTime()} just before it
 * was handed to the driver and its lease's local deadline right after it returned (the deadline only moves
 * later, so a write sent after that deadline was sent after the deadline in force when the driver checked it),
 * each lease loss as the holder learned it ({@code onLost}), and each renewal as the holder saw it (its local
 * deadline moving later, sampled every {@value #SAMPLE_MILLIS} ms).
 *
 * <p>Arguments: id seed mode storeUrl dataUrl rows ttlMillis endMicros historyFile
 */
public final class HolderMain {

    static final int SAMPLE_MILLIS = 10;

    /** The lease being held and the deadline it was last seen with, for the renewal sampler. */
    private record Held(Lease lease, long op, long deadline) {}

    private static final java.util.concurrent.atomic.AtomicReference<Held> HELD =
            new java.util.concurrent.atomic.AtomicReference<>();
    /**
     * A lease the holder keeps for as long as it can (a membership or leader lease), taken again whenever it
     * is lost: the row leases last a write, too short to be renewed, so this one gives the renewal figures.
     */
    private static final java.util.concurrent.atomic.AtomicReference<Held> MEMBER =
            new java.util.concurrent.atomic.AtomicReference<>();

    private HolderMain() {}

    /** Logs a renewal whenever the held lease's deadline moves later. */
    private static void sampleRenewals(PrintStream out, String id) {
        Thread t = new Thread(
                () -> {
                    while (true) {
                        for (var ref : List.of(HELD, MEMBER)) {
                            Held h = ref.get();
                            if (h != null && h.lease.isValid()) {
                                long d = LeaseDeadlines.deadlineNanos(h.lease);
                                if (d - h.deadline > 0 && ref.compareAndSet(h, new Held(h.lease, h.op, d))) {
                                    out.println("renew " + id + " " + h.op + " " + h.lease.name() + " "
                                            + h.lease.token() + " " + now());
                                }
                            }
                        }
                        try {
                            Thread.sleep(SAMPLE_MILLIS);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "renewal-sampler");
        t.setDaemon(true);
        t.start();
    }

    public static void main(String[] a) throws Exception {
        String id = a[0];
        Random random = new Random(Long.parseLong(a[1]));
        boolean fenced = a[2].equals("fenced");
        String storeUrl = a[3];
        String dataUrl = a[4];
        int rows = Integer.parseInt(a[5]);
        Duration ttl = Duration.ofMillis(Long.parseLong(a[6]));
        long endMicros = Long.parseLong(a[7]);
        PrintStream out = new PrintStream(new FileOutputStream(a[8], true), true, "UTF-8");
        PGSimpleDataSource store = new PGSimpleDataSource();
        store.setURL(storeUrl);
        try (LeaseManager leases = LeaseManager.builder(store)
                .holder("holder-" + id + "-" + ProcessHandle.current().pid())
                .storeTimeout(Duration.ofSeconds(2))
                .build()) {
            sampleRenewals(out, id);
            long op = 0;
            while (now() < endMicros) {
                op++;
                keepMember(leases, out, id, op, ttl);
                int row = 1 + random.nextInt(rows);
                String name = "row-" + row;
                Optional<Lease> granted;
                long t0 = now();
                try {
                    granted = leases.tryAcquire(name, ttl);
                } catch (SQLException | RuntimeException e) {
                    out.println(
                            "grant-error " + id + " " + op + " " + name + " " + t0 + " " + now() + " " + oneLine(e));
                    Thread.sleep(20);
                    continue;
                }
                if (granted.isEmpty()) {
                    Thread.sleep(5 + random.nextInt(20));
                    continue;
                }
                try (Lease lease = granted.get()) {
                    long token = lease.token();
                    out.println("grant " + id + " " + op + " " + name + " " + token + " " + t0 + " " + now());
                    logLoss(lease, out, id, op);
                    HELD.set(new Held(lease, op, LeaseDeadlines.deadlineNanos(lease)));
                    writeOnce(out, id, op, fenced, dataUrl, row, lease, random);
                } finally {
                    HELD.set(null);
                }
            }
        }
        out.println("done " + id + " " + now());
    }

    /** Takes the member lease again if it is not held (errors are the row loop's business: it meets them too). */
    private static void keepMember(LeaseManager leases, PrintStream out, String id, long op, Duration ttl) {
        Held m = MEMBER.get();
        if (m != null && m.lease.isValid()) {
            return;
        }
        try {
            leases.tryAcquire("member-" + id, ttl).ifPresent(l -> {
                out.println("member " + id + " " + op + " " + l.name() + " " + l.token() + " " + now());
                logLoss(l, out, id, op);
                MEMBER.set(new Held(l, op, LeaseDeadlines.deadlineNanos(l)));
            });
        } catch (SQLException | RuntimeException e) {
            // the store is down or stalled: next time
        } finally {
            FencedTestExtension.unbind(); // the member lease's token is not the row's
        }
    }

    private static void logLoss(Lease lease, PrintStream out, String id, long op) {
        lease.onLost(l -> out.println("lost " + id + " " + op + " " + l.name() + " " + l.token() + " " + now() + " "
                + System.nanoTime() + " " + LeaseDeadlines.deadlineNanos(l)));
    }

    private static void writeOnce(
            PrintStream out, String id, long op, boolean fenced, String dataUrl, int row, Lease lease, Random random)
            throws InterruptedException {
        long token = lease.token();
        long t0 = now();
        long value = -1;
        long sentNanos = 0;
        String outcome;
        try (Connection c = DriverManager.getConnection(dataUrl)) {
            long read;
            try (PreparedStatement ps = c.prepareStatement("SELECT val FROM cells WHERE id = ?")) {
                ps.setInt(1, row);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    read = rs.getLong(1);
                }
            }
            // The point the nemesis may freeze us at: read done, write not yet sent.
            out.println("read " + id + " " + op + " row-" + row + " " + token + " " + now());
            Thread.sleep(20 + random.nextInt(120)); // compute: the window a pause or a stall can hit
            value = read * 31 + token; // a whole new value, unique to this write
            int n;
            if (fenced) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE cells SET val = ? WHERE id = ?")) {
                    ps.setLong(1, value);
                    ps.setInt(2, row);
                    sentNanos = System.nanoTime();
                    n = ps.executeUpdate();
                }
            } else {
                try (PreparedStatement ps =
                        c.prepareStatement("UPDATE cells SET val = ?, last_token = ? WHERE id = ?")) {
                    ps.setLong(1, value);
                    ps.setLong(2, token);
                    ps.setInt(3, row);
                    sentNanos = System.nanoTime();
                    n = ps.executeUpdate();
                }
            }
            outcome = n == 1 ? "ok" : "none";
        } catch (StaleTokenException e) {
            outcome = "stale";
        } catch (LeaseLostException e) {
            outcome = "lost";
        } catch (SQLException e) {
            outcome = "error:" + e.getSQLState();
        }
        out.println("write " + id + " " + op + " row-" + row + " " + token + " " + t0 + " " + now() + " " + value + " "
                + outcome + " " + sentNanos + " " + LeaseDeadlines.deadlineNanos(lease));
    }

    static long now() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    private static String oneLine(Throwable e) {
        String state = e instanceof SQLException s ? "[" + s.getSQLState() + "]" : "";
        String m = e.getClass().getSimpleName() + state + ":" + e.getMessage();
        return m.replaceAll("\\s+", "_");
    }
}
