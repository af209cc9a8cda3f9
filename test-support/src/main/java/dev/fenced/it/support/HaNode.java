package dev.fenced.it.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One node of a PostgreSQL HA cluster as an HA manager runs it ({@link PatroniNode}, {@link AutoFailoverNode}): the
 * manager's process, started as the postgres user ({@code setpriv}, as teams run it: never as root), and the
 * PostgreSQL 15 postmaster it manages, on a free loopback port, with its data directory and log under the node's
 * folder. What every manager's node shares: the postmaster can be SIGKILLed alone (the manager lives on), or the whole
 * node (the manager, the postmaster and every backend at once, as a machine dies), and the manager launched again on
 * the same data directory.
 */
public abstract class HaNode {

    /** Debian's PostgreSQL 15 binaries, which both Patroni and pg_auto_failover run here. */
    public static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");

    private final String name;
    private final Path dir;
    private final int pgPort;
    private final Path log;
    private volatile Process manager;

    protected HaNode(String name, Path dir, int pgPort, String logName) {
        this.name = name;
        this.dir = dir;
        this.pgPort = pgPort;
        this.log = dir.resolve(logName);
    }

    public final String name() {
        return name;
    }

    /** PostgreSQL's port on 127.0.0.1. */
    public final int pgPort() {
        return pgPort;
    }

    /** This node alone, {@code jdbc:postgresql://127.0.0.1:<port>/postgres?user=postgres}. */
    public final String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres?user=postgres";
    }

    final Path dir() {
        return dir;
    }

    final Path dataDir() {
        return dir.resolve("data");
    }

    /** The manager's log (which also holds PostgreSQL's start-up output, as the manager runs it). */
    final Path log() {
        return log;
    }

    /**
     * Starts {@code command} (the manager) as the postgres user, with {@code environment} added to this JVM's, output
     * appended to the node's log. Does not wait.
     */
    final void launchAsPostgres(List<String> command, Map<String, String> environment) throws IOException {
        List<String> all = new ArrayList<>(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
        all.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(all)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(environment);
        manager = pb.start();
    }

    /** The manager's process (setpriv execs it), while it runs: with its descendants, the whole node. */
    final Optional<ProcessHandle> managerProcess() {
        Process p = manager;
        return p == null || !p.isAlive() ? Optional.empty() : Optional.of(p.toHandle());
    }

    /**
     * Whether pgjdbc's {@code targetServerType=primary} would take this node now: it answers, is not in recovery and
     * not read-only (pg_auto_failover promotes a standby with {@code default_transaction_read_only} on, and turns it
     * off only once the monitor has confirmed the promotion).
     */
    public final boolean isWritablePrimary() {
        try (Connection c = DriverManager.getConnection(jdbcUrl() + "&connectTimeout=1&socketTimeout=2");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'")) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException e) {
            return false;
        }
    }

    /** Whether the manager runs (setpriv execs it: the process started is the manager's). */
    public final boolean isAlive() {
        Process p = manager;
        return p != null && p.isAlive();
    }

    /** The postmaster's process, from {@code postmaster.pid}, if it runs. */
    public final Optional<ProcessHandle> postmaster() throws IOException {
        Path pidFile = dataDir().resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile);
        if (lines.isEmpty() || lines.get(0).isBlank()) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(lines.get(0).trim())).filter(ProcessHandle::isAlive);
    }

    /**
     * SIGKILLs the postmaster alone; the manager lives on and decides what follows. Its children (backends,
     * walsenders, background processes) are orphaned: they should exit once they notice, but while any still holds the
     * shared memory PostgreSQL cannot start again on this data directory (see {@link #reapOrphans}). Returns them.
     */
    public final List<ProcessHandle> killPostmaster() throws IOException {
        ProcessHandle pm = postmaster().orElseThrow(() -> new IllegalStateException(name + " has no postmaster"));
        List<ProcessHandle> children = pm.children().toList();
        pm.destroyForcibly();
        pm.onExit().join();
        return children;
    }

    /**
     * Waits up to {@code grace} for the orphans of a killed postmaster to exit; SIGKILLs those still there after it
     * and returns what each was ({@code pid: process title}), so that a test can report them.
     */
    public static List<String> reapOrphans(List<ProcessHandle> orphans, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        List<String> reaped = new ArrayList<>();
        for (ProcessHandle p : orphans) {
            long left = Math.max(0, deadline - System.nanoTime());
            try {
                p.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                reaped.add(p.pid() + ": " + title(p));
                p.destroyForcibly();
                p.onExit().join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return reaped;
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
        return reaped;
    }

    /** A PostgreSQL process's title (what ps shows: its kind and, for a backend, its state), read from /proc. */
    private static String title(ProcessHandle p) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"))
                    .replace('\0', ' ')
                    .trim();
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * The whole node dies at once, as a machine would: SIGKILL to the manager (and its subprocesses), the postmaster
     * and every backend (the postmaster is found by its pid file too, in case the manager had already lost track of
     * it).
     */
    public final void kill() throws IOException {
        List<ProcessHandle> victims = new ArrayList<>();
        Process p = manager;
        if (p != null) {
            victims.add(p.toHandle());
            p.toHandle().descendants().forEach(victims::add);
        }
        postmaster().ifPresent(pm -> {
            victims.add(pm);
            pm.descendants().forEach(victims::add);
        });
        victims.forEach(ProcessHandle::destroyForcibly);
        victims.forEach(v -> v.onExit().join());
    }

    /** SIGTERM to the manager (it stops PostgreSQL first), then the whole node SIGKILLed after 20 s. */
    final void stop() throws IOException {
        Process p = manager;
        if (p != null && p.isAlive()) {
            p.destroy();
            try {
                p.waitFor(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        kill();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
