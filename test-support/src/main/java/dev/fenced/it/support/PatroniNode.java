package dev.fenced.it.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Patroni node of a {@link PatroniCluster}: a Patroni process (Debian's package, run as the postgres user) and the
 * PostgreSQL 15 postmaster it manages, on free loopback ports (Patroni's REST API and PostgreSQL, 127.0.0.1 only),
 * with a data directory, a configuration file and a log under the cluster's folder. Its postmaster can be SIGKILLed
 * alone (Patroni lives on), or the whole node (Patroni, the postmaster and every backend at once), and the node
 * launched again on the same configuration and data directory.
 */
public final class PatroniNode {

    private static final Pattern ROLE = Pattern.compile("\"role\": ?\"([a-z_]+)\"");
    private static final Pattern TIMELINE = Pattern.compile("\"timeline\": ?(\\d+)");

    private final String name;
    private final Path dir;
    private final int restPort;
    private final int pgPort;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private volatile Process patroni;

    private PatroniNode(String name, Path dir, int restPort, int pgPort) {
        this.name = name;
        this.dir = dir;
        this.restPort = restPort;
        this.pgPort = pgPort;
    }

    /** Node {@code name}, its files in {@code root/name}, on two free ports; not started. */
    static PatroniNode create(String name, Path root) throws IOException {
        return new PatroniNode(name, root.resolve(name), freePort(), freePort());
    }

    public String name() {
        return name;
    }

    /** PostgreSQL's port on 127.0.0.1. */
    public int pgPort() {
        return pgPort;
    }

    /** This node alone, {@code jdbc:postgresql://127.0.0.1:<port>/postgres?user=postgres}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres?user=postgres";
    }

    Path dir() {
        return dir;
    }

    Path dataDir() {
        return dir.resolve("data");
    }

    Path config() {
        return dir.resolve("patroni.yml");
    }

    Path log() {
        return dir.resolve("patroni.log");
    }

    /** This node's part of Patroni's YAML configuration (everything but the scope, the DCS and bootstrap). */
    String localConfig() {
        return "name: " + name + "\n"
                + "restapi:\n"
                + "  listen: 127.0.0.1:" + restPort + "\n"
                + "  connect_address: 127.0.0.1:" + restPort + "\n"
                + "postgresql:\n"
                + "  listen: 127.0.0.1:" + pgPort + "\n"
                + "  connect_address: 127.0.0.1:" + pgPort + "\n"
                + "  data_dir: " + dataDir() + "\n"
                + "  bin_dir: " + PatroniCluster.PG_BIN + "\n"
                + "  pgpass: " + dir.resolve("pgpass") + "\n"
                + "  authentication:\n"
                + "    superuser: {username: postgres}\n"
                + "    replication: {username: postgres}\n"
                + "    rewind: {username: postgres}\n"
                + "  parameters:\n"
                + "    unix_socket_directories: '" + dir + "'\n";
    }

    /**
     * Starts Patroni as the postgres user ({@code setpriv}), output appended to the node's log. Does not wait: Patroni
     * bootstraps, clones or rejoins (by {@code pg_rewind} when the node's timeline diverged) on its own.
     */
    void launch() throws IOException {
        patroni = new ProcessBuilder(List.of(
                        "setpriv",
                        "--reuid=postgres",
                        "--regid=postgres",
                        "--init-groups",
                        PatroniCluster.PATRONI.toString(),
                        config().toString()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                .start();
    }

    /** Whether Patroni runs (setpriv execs it: the process started is Patroni's). */
    public boolean isAlive() {
        Process p = patroni;
        return p != null && p.isAlive();
    }

    /** Patroni's answer to {@code GET /<endpoint>}: its HTTP status, or empty if it does not answer within a second. */
    Optional<HttpResponse<String>> get(String endpoint) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/" + endpoint))
                .timeout(Duration.ofSeconds(1))
                .GET()
                .build();
        try {
            return Optional.of(http.send(request, HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether Patroni answers {@code GET /<endpoint>} with 200 ({@code primary}, {@code replica}, {@code sync}...). */
    public boolean answers(String endpoint) throws InterruptedException {
        return get(endpoint).map(r -> r.statusCode() == 200).orElse(false);
    }

    /** The role Patroni reports ({@code master}/{@code primary}, {@code replica}...), if it answers. */
    public Optional<String> role() throws InterruptedException {
        return get("patroni").flatMap(r -> group(ROLE, r.body()));
    }

    /** The timeline of the node's PostgreSQL as Patroni reports it, if it answers and PostgreSQL runs. */
    public OptionalLong timeline() throws InterruptedException {
        Optional<String> t = get("patroni").flatMap(r -> group(TIMELINE, r.body()));
        return t.isPresent() ? OptionalLong.of(Long.parseLong(t.get())) : OptionalLong.empty();
    }

    private static Optional<String> group(Pattern p, String body) {
        Matcher m = p.matcher(body);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** The postmaster's process, from {@code postmaster.pid}, if it runs. */
    public Optional<ProcessHandle> postmaster() throws IOException {
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
     * SIGKILLs the postmaster alone; Patroni lives on and decides what follows. Its children (backends, walsenders,
     * background processes) are orphaned: they should exit once they notice, but while any still holds the shared
     * memory PostgreSQL cannot start again on this data directory (see {@link #reapOrphans}). Returns them.
     */
    public List<ProcessHandle> killPostmaster() throws IOException {
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
            } catch (java.util.concurrent.TimeoutException e) {
                reaped.add(p.pid() + ": " + title(p));
                p.destroyForcibly();
                p.onExit().join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return reaped;
            } catch (java.util.concurrent.ExecutionException e) {
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
     * The whole node dies at once, as a machine would: SIGKILL to Patroni, the postmaster and every backend (the
     * postmaster is found by its pid file too, in case Patroni had already lost track of it).
     */
    public void kill() throws IOException {
        List<ProcessHandle> victims = new ArrayList<>();
        Process p = patroni;
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

    /** SIGTERM to Patroni (it stops PostgreSQL first), then the whole node SIGKILLed after 20 s. */
    void stop() throws IOException {
        Process p = patroni;
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

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
