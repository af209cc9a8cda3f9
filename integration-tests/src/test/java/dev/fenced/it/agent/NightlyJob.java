package dev.fenced.it.agent;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * An application job that knows nothing of fencing: it writes totals from the calling thread, a fixed
 * thread pool, {@code CompletableFuture.runAsync} on the default executor and (Java 21+) a virtual thread.
 * The agent's configuration ({@code fenced.lease.nightly.method=dev.fenced.it.agent.NightlyJob#run}) is what
 * puts {@link #run} under a lease. For the tests' sake it reports, per thread, the token it sees through
 * {@code reporter}, which {@link JobMain} points at {@code Fencing.currentToken()}: reporting only, the job
 * itself never binds a token.
 */
public class NightlyJob {

    private final String url;
    private final Consumer<String> reporter;
    /** Runs inside the body, after the caller's write (a handshake point for the tests). */
    volatile Runnable inside = () -> {};
    /** The pool the job uses; the tests may keep it to look at its worker afterwards. */
    final ExecutorService pool;

    public NightlyJob(String url, Consumer<String> reporter, ExecutorService pool) {
        this.url = url;
        this.reporter = reporter;
        this.pool = pool;
    }

    /** The nightly job. Returns true when it ran. */
    public boolean run() throws Exception {
        write("caller", 1);
        pool.submit(() -> {
                    write("pool", 2);
                    return null;
                })
                .get();
        CompletableFuture.runAsync(() -> {
                    try {
                        write("async", 3);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .get();
        if (Runtime.version().feature() >= 21) {
            AtomicReference<SQLException> failed = new AtomicReference<>();
            Thread vt = (Thread) Thread.class
                    .getMethod("startVirtualThread", Runnable.class)
                    .invoke(null, (Runnable) () -> {
                        try {
                            write("virtual", 4);
                        } catch (SQLException e) {
                            failed.set(e);
                        }
                    });
            vt.join();
            if (failed.get() != null) {
                throw failed.get();
            }
        }
        inside.run();
        return true;
    }

    /** A recursive job: each level reports and writes; bound to a lease, only the outermost call acquires it. */
    public int nested(int depth) throws SQLException {
        write("nested-" + depth, 6 + depth);
        return depth == 0 ? 1 : 1 + nested(depth - 1);
    }

    void write(String where, int restaurant) throws SQLException {
        reporter.accept(where);
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = ?")) {
            ps.setLong(1, 1000 + restaurant);
            ps.setInt(2, restaurant);
            ps.executeUpdate();
        }
    }
}
