package dev.fenced.example.nightly.scenario;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One instance of the service: a child JVM running the application jar, its output in a log file, its Actuator on
 * a loopback port. Frozen and resumed with real signals ({@code kill -STOP}/{@code -CONT}), read over HTTP.
 */
@SuppressWarnings("try") // close() waits for the child JVM to exit, so it may be interrupted: its callers all throw
final class Instance implements AutoCloseable {

    private static final Pattern VALUE = Pattern.compile("\"value\"\\s*:\\s*([-0-9.eE+]+)");

    private final String name;
    private final Process process;
    private final int httpPort;
    private final Path log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Instance(String name, Process process, int httpPort, Path log) {
        this.name = name;
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
    }

    /** Starts {@code java -jar jar} with the service's settings for the scenario. */
    static Instance start(String name, Path jar, String jdbcUrl, Duration lockAtMostFor, String fencedMode, Path logDir)
            throws IOException {
        int httpPort = freePort();
        Path log = logDir.resolve("instance-" + name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                jar.toString(),
                "--spring.datasource.url=" + jdbcUrl,
                "--server.address=127.0.0.1",
                "--server.port=" + httpPort,
                "--nightly.instance=" + name,
                "--fenced.mode=" + fencedMode,
                "--nightly.cron=* * * * * *", // a catch-up schedule: every second, the job runs once a night
                "--nightly.lock-at-most-for=" + lockAtMostFor.toMillis() + "ms",
                "--spring.main.banner-mode=off"));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new Instance(name, p, httpPort, log);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    String actuator() {
        return "http://127.0.0.1:" + httpPort + "/actuator";
    }

    /** SIGSTOP, and waits until the kernel reports the process stopped. */
    void freeze() throws IOException, InterruptedException {
        signal("-STOP");
        awaitState(true);
    }

    /** SIGCONT, and waits until the kernel reports the process running again. */
    void resume() throws IOException, InterruptedException {
        signal("-CONT");
        awaitState(false);
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill " + signal + " " + pid() + " failed (instance " + name + ")");
        }
    }

    /** Polls /proc/PID/stat (Linux) for state T (stopped); elsewhere trusts kill's exit status. */
    private void awaitState(boolean stopped) throws IOException, InterruptedException {
        Path stat = Path.of("/proc", Long.toString(pid()), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (isStopped(Files.readString(stat)) != stopped) {
            if (System.nanoTime() > deadline) {
                throw new IOException("instance " + name + " (pid " + pid() + ") did not become "
                        + (stopped ? "stopped" : "running") + ": " + Files.readString(stat));
            }
            Thread.sleep(10);
        }
    }

    private static boolean isStopped(String stat) {
        return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
    }

    /**
     * A counter from {@code /actuator/metrics/NAME[?tag=TAG]}; 0 while the meter does not exist yet (Micrometer
     * registers {@code nightly.runs} with a tag on its first increment). Fails if the instance does not answer.
     */
    double metric(String name, String tag) throws IOException, InterruptedException {
        String uri = actuator() + "/metrics/" + name + (tag == null ? "" : "?tag=" + tag);
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(uri))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() == 404) {
            return 0;
        }
        Matcher m = VALUE.matcher(r.body());
        if (r.statusCode() != 200 || !m.find()) {
            throw new IOException("GET " + uri + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return Double.parseDouble(m.group(1));
    }

    /** Throws if the JVM has exited (a start-up failure), naming its log. */
    void ensureAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(
                    "instance " + name + " exited with status " + process.exitValue() + "; its output is in " + log);
        }
    }

    /** SIGCONT (in case it is frozen), then a graceful stop (SIGTERM), then SIGKILL after 20 s. */
    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        try {
            signal("-CONT");
        } catch (IOException ignored) {
            // exited meanwhile
        }
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
