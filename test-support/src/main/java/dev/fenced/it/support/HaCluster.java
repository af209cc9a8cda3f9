package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What a PostgreSQL HA cluster looks like to a test, whichever manager runs it ({@link PatroniCluster},
 * {@link AutoFailoverCluster}): its data nodes (a primary and streaming replicas) on loopback, under one temporary
 * folder owned by the postgres user, the application's multi-host URL over them, their logs, and their shutdown.
 */
public abstract class HaCluster<N extends HaNode> implements AutoCloseable {

    private final Path root;
    private final List<N> nodes;

    protected HaCluster(Path root, List<N> nodes) {
        this.root = root;
        this.nodes = List.copyOf(nodes);
    }

    /** The data nodes (not a manager's own servers, such as pg_auto_failover's monitor). */
    public final List<N> nodes() {
        return nodes;
    }

    final Path root() {
        return root;
    }

    /** Every node, {@code 127.0.0.1:p1,127.0.0.1:p2}, for pgjdbc's multi-host URL. */
    public final String hosts() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.pgPort()).collect(Collectors.joining(","));
    }

    /**
     * The application's URL: every node, {@code targetServerType=primary} (pgjdbc tries each host until one is the
     * primary: not in recovery and not read-only), plus {@code parameters} ({@code a=b&c=d}, may be empty).
     */
    public final String multiHostUrl(String parameters) {
        return "jdbc:postgresql://" + hosts() + "/postgres?user=postgres&targetServerType=primary"
                + (parameters.isEmpty() ? "" : "&" + parameters);
    }

    /** Waits until a node other than {@code old} (null: any) is the primary, {@code timeout} at most. */
    public abstract N awaitPrimaryOtherThan(N old, Duration timeout) throws InterruptedException, IOException;

    /**
     * Waits until {@code node} is a replica streaming from the primary (in a synchronous set-up, the synchronous
     * standby), {@code timeout} at most: after a failover, the old primary rejoined, by {@code pg_rewind} if its WAL
     * diverged.
     */
    public abstract void awaitReplica(N node, Duration timeout) throws InterruptedException, IOException;

    /**
     * When {@code old}, the primary, stopped taking writes and when another node took them (each
     * {@link System#nanoTime()}, polled every 20 ms through {@link HaNode#isWritablePrimary}; stopped: the first of two
     * failed probes in a row), {@code timeout} at most:
     * for a fault that leaves the old primary running (cut off from its manager), where the two need not come in
     * that order. {@code next} writable first means both took writes for a while.
     */
    public final Switch<N> awaitSwitch(N old, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long oldStopped = 0;
        long oldFailedSince = 0; // two failed probes in a row: one may just be slow (a loaded machine)
        N next = null;
        long nextWritable = 0;
        while (true) {
            long now = System.nanoTime();
            if (oldStopped == 0) {
                if (old.isWritablePrimary()) {
                    oldFailedSince = 0;
                } else if (oldFailedSince == 0) {
                    oldFailedSince = now;
                } else {
                    oldStopped = oldFailedSince;
                }
            }
            for (N n : nodes) {
                if (next == null && n != old && n.isWritablePrimary()) {
                    next = n;
                    nextWritable = now;
                }
            }
            if (oldStopped != 0 && next != null) {
                return new Switch<>(next, oldStopped, nextWritable);
            }
            if (now - deadline > 0) {
                throw new IllegalStateException("no switch from " + old.name() + " within " + timeout
                        + (oldStopped == 0 ? " (it still takes writes)" : "")
                        + (next == null ? " (no other primary)" : "")
                        + ": " + logs());
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the nodes
        }
    }

    /** See {@link #awaitSwitch}. */
    public record Switch<N extends HaNode>(N next, long oldStopped, long nextWritable) {}

    /** Starts the manager of a killed node again on its data directory: it rejoins by itself. */
    public abstract void relaunch(N node) throws IOException;

    /** {@code node}'s timeline, as its manager reports it once settled. */
    public abstract long timelineOf(N node) throws InterruptedException, SQLException;

    /**
     * Whether {@code leader}'s {@code pg_stat_replication} shows a walsender named {@code applicationName} in state
     * {@code streaming}. An HA manager may call a fresh clone a replica before it streams (Patroni's {@code GET
     * /replica}); promoted then, it has none of the primary's writes since the clone.
     */
    static boolean streaming(HaNode leader, String applicationName) {
        try (Connection c = DriverManager.getConnection(leader.jdbcUrl());
                PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_replication WHERE application_name = ? AND state = 'streaming'")) {
            ps.setString(1, applicationName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        } catch (SQLException e) {
            return false; // not answering yet: poll again
        }
    }

    /** The processes {@link #close} stops: the data nodes, and whatever else the manager runs. */
    protected List<? extends HaNode> processes() {
        return nodes;
    }

    /** Every process's log, each cut to its last 8,000 characters. */
    public final String logs() throws IOException {
        StringBuilder all = new StringBuilder();
        for (HaNode n : processes()) {
            all.append("\n--- ").append(n.name()).append('\n');
            if (Files.exists(n.log())) {
                String log = Files.readString(n.log());
                all.append(log.length() > 8000 ? log.substring(log.length() - 8000) : log);
            }
        }
        return all.toString();
    }

    /** The lines of the nodes' logs that mention {@code pg_rewind}: whether and how each rejoin rewound. */
    public final List<String> rewindLines() throws IOException {
        List<String> lines = new ArrayList<>();
        for (HaNode n : nodes) {
            if (Files.exists(n.log())) {
                Files.readAllLines(n.log()).stream()
                        .filter(l -> l.contains("pg_rewind"))
                        .forEach(l -> lines.add(n.name() + ": " + l));
            }
        }
        return lines;
    }

    /** Stops every process (the manager stops its PostgreSQL; SIGKILL after 20 s) and deletes their files. */
    @Override
    public void close() throws IOException {
        for (HaNode n : processes()) {
            n.stop();
        }
        EtcdCluster.delete(root);
    }

    /** Runs {@code command} (as root, this JVM's user) to its end, 60 s at most; fails with its output otherwise. */
    static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(List.of(command) + " failed: " + out);
        }
        return out;
    }
}
