package dev.fenced.it.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM on the test class path, the one way the integration tests start one: talked to line by line over
 * stdin/stdout, waited for, frozen and thawed with real signals ({@code kill -STOP}/{@code -CONT}) and killed without
 * warning. Both streams are kept for assertions and echoed to this JVM's stderr with a prefix so failures can be read
 * in the test report; they are never inherited, because the test runner's own channel may live on them.
 *
 * <p>Its main runs under {@link LeakCheckedMain}, so the suite-wide invariant holds in the child too: {@link #close()}
 * fails when a child that ended on its own reported a pooled thread left with a binding (or armed the check and gave
 * no verdict, unless the test said it means the child to halt). A child this class killed is not checked: SIGKILL
 * runs no shutdown hook.
 */
public final class ChildJvm implements AutoCloseable {

    private static final String EOF = "\u0000eof";
    private static final Duration STREAMS = Duration.ofSeconds(10);

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> pending = new LinkedBlockingQueue<>(); // stdout lines not yet awaited
    private final List<String> out = new CopyOnWriteArrayList<>();
    private final List<String> err = new CopyOnWriteArrayList<>();
    private final Thread outPump;
    private final Thread errPump;
    private volatile boolean killed;
    private volatile boolean halts;

    private ChildJvm(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.outPump = pump(process.getInputStream(), "out", out, true);
        this.errPump = pump(process.getErrorStream(), "err", err, false);
    }

    /** {@code main} with {@code args}, no options. */
    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        return start(List.of(), null, main.getName(), args);
    }

    /**
     * @param jvmOptions before the class path (an agent, system properties, logging)
     * @param extraClassPath put before the test class path (classes a test generated), or null
     * @param main the class whose main runs, under {@link LeakCheckedMain}
     */
    public static ChildJvm start(List<String> jvmOptions, String extraClassPath, String main, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1"); // starts faster; the child does little work
        command.addAll(jvmOptions);
        command.add("--add-opens=java.base/java.lang=ALL-UNNAMED"); // for the leak check, as in the test JVM
        command.add("-cp");
        command.add(extraClassPath == null ? classPath() : extraClassPath + File.pathSeparator + classPath());
        command.add(LeakCheckedMain.class.getName()); // the suite-wide invariant, checked as the child exits
        command.add(main);
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        // The child reads the configuration its test gave it, not the developer's shell (the test database aside).
        pb.environment().keySet().removeIf(k -> k.startsWith("FENCED_") && !k.equals(TestDatabase.ENV));
        return new ChildJvm(pb.start());
    }

    /** The test class path, as real entries (failsafe may hand this JVM a manifest-only jar). */
    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    public long pid() {
        return process.pid();
    }

    /** The next stdout line that starts with one of {@code prefixes}; fails if none comes in time. */
    public String awaitLine(Duration timeout, String... prefixes) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = end - System.nanoTime();
            String line = left <= 0 ? null : pending.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("child " + pid() + " said none of " + List.of(prefixes) + " within " + timeout
                        + "; " + output());
            }
            if (line.equals(EOF)) {
                throw new AssertionError("child " + pid() + " ended (exit " + exitValueOrNull()
                        + ") before saying any of " + List.of(prefixes) + "; " + output());
            }
            for (String p : prefixes) {
                if (line.startsWith(p)) {
                    return line;
                }
            }
        }
    }

    public void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Every stdout line the child has said so far, whether or not {@link #awaitLine} consumed it. */
    public List<String> stdout() {
        return List.copyOf(out);
    }

    /** Every stderr line so far. */
    public List<String> stderr() {
        return List.copyOf(err);
    }

    /** Stdout lines starting with {@code prefix}, without it. */
    public List<String> lines(String prefix) {
        return out.stream()
                .filter(l -> l.startsWith(prefix))
                .map(l -> l.substring(prefix.length()))
                .toList();
    }

    /** True once the child has ended and all it wrote has been read. */
    public boolean waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        outPump.join(STREAMS.toMillis());
        errPump.join(STREAMS.toMillis());
        return true;
    }

    /** Waits for the child to end and its output to be read; returns the exit status. Kills it and fails if late. */
    public int await(Duration timeout) throws InterruptedException {
        if (!waitFor(timeout)) {
            kill();
            throw new AssertionError("child " + pid() + " still running after " + timeout + "; " + output());
        }
        return process.exitValue();
    }

    /** Sends a real signal: STOP freezes every thread of the child at once, CONT thaws it. */
    public void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid()))
                .redirectErrorStream(true)
                .start();
        String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + pid() + " failed: " + said);
        }
    }

    /** The state letter from /proc (T when stopped), or "?" where there is no /proc. */
    public String state() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
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
            Thread.sleep(5); // /proc has no notification to wait on
        }
    }

    /**
     * Says the test means the child to end by {@code Runtime.halt} (the agent stops a JVM at once rather than run a
     * lease-bound method unfenced), which runs no shutdown hook: {@link #close()} then owes it no verdict, as after
     * SIGKILL, but still fails on a leak it reported.
     */
    public ChildJvm expectHalt() {
        halts = true;
        return this;
    }

    /** SIGKILL: the child dies at once, no shutdown hooks (so no leak check), no release. */
    public void kill() throws InterruptedException {
        killed = true;
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Kills the child if it still runs (thawing it first: a stopped process may not act on SIGKILL until continued).
     * Else, unless this class killed it, fails when its stderr says it leaked as it exited ({@link LeakCheckedMain}), or
     * that it armed the check and ended without a verdict (unless {@link #expectHalt()}).
     */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (IOException ignored) {
                // it may have ended meanwhile
            }
            kill();
            return;
        }
        if (killed) {
            return;
        }
        errPump.join(STREAMS.toMillis());
        if (errPump.isAlive()) {
            throw new AssertionError("child " + pid() + ": its stderr was not read to the end within " + STREAMS
                    + ", so its leak check is unknown");
        }
        String leak = LeakCheckedMain.leakIn(err);
        if (leak != null) {
            throw new AssertionError("child " + pid() + " (exit " + process.exitValue() + "): " + leak);
        }
        if (!halts && LeakCheckedMain.verdictOwed(err)) {
            throw new AssertionError("child " + pid() + " (exit " + process.exitValue()
                    + ") armed the leak check and ended without its verdict (see its stderr)");
        }
    }

    private Integer exitValueOrNull() {
        return process.isAlive() ? null : process.exitValue();
    }

    private String output() {
        return "stdout " + out + ", stderr " + err;
    }

    private Thread pump(InputStream in, String stream, List<String> keep, boolean awaitable) {
        Thread t = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            System.err.println("[child " + process.pid() + " " + stream + "] " + line);
                            keep.add(line);
                            if (awaitable) {
                                pending.add(line);
                            }
                        }
                    } catch (IOException ignored) {
                        // the child is gone
                    } finally {
                        if (awaitable) {
                            pending.add(EOF);
                        }
                    }
                },
                "child-" + process.pid() + "-" + stream);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
