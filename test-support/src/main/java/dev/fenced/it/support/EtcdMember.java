package dev.fenced.it.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One etcd process (Debian's etcd-server) on free loopback ports (127.0.0.1 only) with a data directory of its own:
 * what {@link EtcdServer} (one member) and {@link EtcdCluster} (three) are made of. It can be killed (SIGKILL) and
 * launched again on the same ports and data directory, as a restarted member.
 */
public final class EtcdMember {

    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\":\"(\\d+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"(\\d+)\"");

    private final String name;
    private final Path dataDir;
    private final Path log;
    private final String clientUrl;
    private final String peerUrl;
    private final int uid;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private volatile Process process;

    private EtcdMember(String name, Path dataDir, Path log, String clientUrl, String peerUrl, int uid) {
        this.name = name;
        this.dataDir = dataDir;
        this.log = log;
        this.clientUrl = clientUrl;
        this.peerUrl = peerUrl;
        this.uid = uid;
    }

    /** The etcd binary, if installed ({@code apt-get install -y etcd-server}). */
    public static Optional<Path> binary() {
        return Stream.of("/usr/bin", "/usr/local/bin")
                .map(dir -> Path.of(dir, "etcd"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Member {@code name}, data in {@code root/name}, log in {@code root/name.log}, on two free ports; not started. */
    static EtcdMember create(String name, Path root) throws IOException {
        return create(name, root, -1);
    }

    /**
     * As {@link #create(String, Path)}, the process run as user {@code uid} (a bare number, no account needed) if it
     * is not negative: its data directory is made its own and {@code root} traversable. Needs root.
     */
    static EtcdMember create(String name, Path root, int uid) throws IOException {
        Path dataDir = root.resolve(name);
        if (uid >= 0) {
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
            Files.createDirectory(
                    dataDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setAttribute(dataDir, "unix:uid", uid);
            Files.setAttribute(dataDir, "unix:gid", uid);
        }
        return new EtcdMember(
                name,
                dataDir,
                root.resolve(name + ".log"),
                "http://127.0.0.1:" + freePort(),
                "http://127.0.0.1:" + freePort(),
                uid);
    }

    public String name() {
        return name;
    }

    /** The URL clients connect to, {@code http://127.0.0.1:<port>}. */
    public String clientUrl() {
        return clientUrl;
    }

    /** The port other members reach this one on (raft messages, snapshots): clients never use it. */
    public int peerPort() {
        return URI.create(peerUrl).getPort();
    }

    /** The user the process runs as, or -1 if it runs as this JVM's user. */
    public int uid() {
        return uid;
    }

    /** This member's entry in {@code --initial-cluster}: {@code name=peerUrl}. */
    String initialClusterEntry() {
        return name + "=" + peerUrl;
    }

    /**
     * Starts the process (again, after {@link #kill()}: etcd then ignores {@code --initial-cluster} and rejoins from
     * its data directory). Does not wait: see {@link #awaitReady(Duration)}.
     */
    void launch(String initialCluster) throws IOException {
        Path etcd = binary().orElseThrow(() -> new IllegalStateException("etcd is not installed"));
        List<String> command = new ArrayList<>();
        if (uid >= 0) { // setpriv execs etcd: the process (its pid, its signals) is etcd's own
            command.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        }
        command.addAll(List.of(
                etcd.toString(),
                "--name",
                name,
                "--data-dir",
                dataDir.toString(),
                "--listen-client-urls",
                clientUrl,
                "--advertise-client-urls",
                clientUrl,
                "--listen-peer-urls",
                peerUrl,
                "--initial-advertise-peer-urls",
                peerUrl,
                "--initial-cluster",
                initialCluster,
                "--initial-cluster-state",
                "new"));
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /** The running process's id (for its CPU time, say), or -1 when it is not running. */
    public long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /**
     * Waits, {@code timeout} at most, until the member answers a read (a linearizable range request through etcd's
     * JSON gateway, so that no etcd client library is needed here): it has a leader and serves reads.
     *
     * @throws IllegalStateException with etcd's log if it did not get there
     */
    void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpRequest read = HttpRequest.newBuilder(URI.create(clientUrl + "/v3/kv/range"))
                .timeout(Duration.ofSeconds(1))
                .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"cmVhZHk=\"}")) // "ready", base64
                .build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Exception failure;
            try {
                HttpResponse<String> answer = http.send(read, HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    return;
                }
                failure = new IOException("HTTP " + answer.statusCode() + ": " + answer.body());
            } catch (IOException e) {
                failure = e;
            }
            if (!isAlive() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("etcd member " + name + " did not get ready: " + log(), failure);
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a process we cannot be told about
        }
    }

    /**
     * This member's id and the leader it knows of, from {@code /v3/maintenance/status}; empty if it does not answer
     * within a second, or knows no leader.
     */
    Optional<long[]> memberAndLeader() throws InterruptedException {
        HttpRequest status = HttpRequest.newBuilder(URI.create(clientUrl + "/v3/maintenance/status"))
                .timeout(Duration.ofSeconds(1))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        try {
            HttpResponse<String> answer = http.send(status, HttpResponse.BodyHandlers.ofString());
            Matcher member = MEMBER_ID.matcher(answer.body());
            Matcher leader = LEADER.matcher(answer.body());
            if (answer.statusCode() != 200 || !member.find() || !leader.find()) {
                return Optional.empty();
            }
            long leaderId = Long.parseUnsignedLong(leader.group(1));
            return leaderId == 0
                    ? Optional.empty()
                    : Optional.of(new long[] {Long.parseUnsignedLong(member.group(1)), leaderId});
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** SIGKILL ({@link Process#destroyForcibly()}), and waits until the process is gone. */
    public void kill() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroyForcibly().waitFor();
        }
    }

    /** SIGTERM, then SIGKILL after 10 s. */
    void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "(no log)";
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
