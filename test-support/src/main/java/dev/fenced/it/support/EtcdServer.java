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
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real one-member etcd (Debian's etcd-server) on free loopback ports, with a data directory of its own, for the
 * tests of etcd tokens and of the etcd lease store. Whether a missing binary skips or fails a test is the test's
 * call ({@link #binary()}).
 */
public final class EtcdServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path dataDir;
    private final String clientUrl;

    private EtcdServer(Process process, Path dataDir, String clientUrl) {
        this.process = process;
        this.dataDir = dataDir;
        this.clientUrl = clientUrl;
    }

    /** The etcd binary, if installed ({@code apt-get install -y etcd-server}). */
    public static Optional<Path> binary() {
        return Stream.of("/usr/bin", "/usr/local/bin")
                .map(dir -> Path.of(dir, "etcd"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /**
     * Starts etcd as member {@code name} and waits, 30 s at most, until it answers a read.
     *
     * @throws IllegalStateException with etcd's log if it did not start
     */
    public static EtcdServer start(String name) throws IOException, InterruptedException {
        Path etcd = binary().orElseThrow(() -> new IllegalStateException("etcd is not installed"));
        Path dataDir = Files.createTempDirectory("fenced-etcd-" + name);
        String clientUrl = "http://127.0.0.1:" + freePort();
        String peerUrl = "http://127.0.0.1:" + freePort();
        Process process = new ProcessBuilder(List.of(
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
                        name + "=" + peerUrl))
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("etcd.log").toFile())
                .start();
        EtcdServer server = new EtcdServer(process, dataDir, clientUrl);
        try {
            server.awaitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The URL clients connect to, {@code http://127.0.0.1:<port>}. */
    public String clientUrl() {
        return clientUrl;
    }

    /**
     * Ready when it answers a read (a linearizable range request through etcd's JSON gateway, so that no etcd client
     * library is needed here): the member has a leader and serves reads.
     */
    private void awaitReady() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest read = HttpRequest.newBuilder(URI.create(clientUrl + "/v3/kv/range"))
                .timeout(Duration.ofSeconds(1))
                .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"cmVhZHk=\"}")) // "ready", base64
                .build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
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
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("etcd did not start: " + log(), failure);
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a process we cannot be told about
        }
    }

    private String log() throws IOException {
        return Files.readString(dataDir.resolve("etcd.log"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Stops etcd and deletes its data. */
    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
