package dev.fenced.it.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM on the test class path, talked to line by line over stdin/stdout, that can be frozen and
 * thawed with real signals ({@code kill -STOP}/{@code -CONT}) and killed without warning. Its output is
 * echoed to this JVM's stderr with a prefix so failures can be read in the test report; stdout and stderr
 * are never inherited, because the test runner's own channel may live on them. Shared by the lease tests and the
 * scheduler nodes of the lock-library tests.
 */
public final class ChildJvm implements AutoCloseable {

    private static final String EOF = "\u0000eof";

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> said = new ArrayList<>(); // every stdout line, kept for audits after the fact

    private ChildJvm(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        pump(process.getInputStream(), "out", true);
        pump(process.getErrorStream(), "err", false);
    }

    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1"); // starts faster; the child does little work
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).start());
    }

    public long pid() {
        return process.pid();
    }

    /** The next stdout line that starts with one of {@code prefixes}; fails if none comes in time. */
    public String awaitLine(Duration timeout, String... prefixes) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = end - System.nanoTime();
            String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError(
                        "child " + pid() + " said none of " + List.of(prefixes) + " within " + timeout);
            }
            if (line.equals(EOF)) {
                throw new AssertionError("child " + pid() + " ended (exit " + exitValueOrNull()
                        + ") before saying any of " + List.of(prefixes));
            }
            for (String p : prefixes) {
                if (line.startsWith(p)) {
                    return line;
                }
            }
        }
    }

    /** Every stdout line the child has said so far, whether or not {@link #awaitLine} consumed it. */
    public List<String> said() {
        synchronized (said) {
            return List.copyOf(said);
        }
    }

    public void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Sends a real signal: STOP freezes every thread of the child at once, CONT thaws it. */
    public void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid()))
                .redirectErrorStream(true)
                .start();
        String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + pid() + " failed: " + out);
        }
    }

    /** The state letter from /proc (T when stopped), or "?" where there is no /proc. */
    public String state() {
        try {
            String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** True if the kernel reports the child stopped (T, or t when traced), or there is no /proc to ask. */
    public boolean isStopped() {
        String s = state();
        return s.equals("T") || s.equals("t") || s.equals("?");
    }

    /** Waits until the kernel reports the child stopped (where /proc exists; elsewhere returns at once). */
    public void awaitStopped(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!isStopped()) {
            String s = state();
            if (System.nanoTime() > end) {
                throw new AssertionError("child " + pid() + " is in state " + s + ", not stopped");
            }
            Thread.sleep(5);
        }
    }

    /** SIGKILL: the child dies at once, no shutdown hooks, no release. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    public boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private Integer exitValueOrNull() {
        return process.isAlive() ? null : process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            try {
                signal("CONT"); // a stopped process does not act on SIGKILL until it is continued on some systems
            } catch (IOException ignored) {
                // it may have ended meanwhile
            }
            kill();
        }
    }

    private void pump(InputStream in, String stream, boolean keep) {
        Thread t = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            System.err.println("[child " + process.pid() + " " + stream + "] " + line);
                            if (keep) {
                                synchronized (said) {
                                    said.add(line);
                                }
                                lines.add(line);
                            }
                        }
                    } catch (IOException ignored) {
                        // the child is gone
                    } finally {
                        if (keep) {
                            lines.add(EOF);
                        }
                    }
                },
                "child-" + process.pid() + "-" + stream);
        t.setDaemon(true);
        t.start();
    }
}
