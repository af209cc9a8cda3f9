package dev.fenced.it.agent;

import dev.fenced.it.support.LeakCheckedMain;
import java.io.BufferedReader;
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
 * A child JVM on the test class path, with or without {@code -javaagent:fenced-agent.jar}. Its stdout is
 * read line by line (handshakes), both streams are kept for assertions and echoed to this JVM's stderr with
 * a prefix for the test report. Its main runs under {@link LeakCheckedMain}, so the suite-wide invariant holds in
 * the child too: {@link #close()} fails when a pooled thread was left with a binding as the child exited.
 */
final class AgentChild implements AutoCloseable {

    private static final String EOF = "\u0000eof";

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> pending = new LinkedBlockingQueue<>();
    private final List<String> out = new CopyOnWriteArrayList<>();
    private final List<String> err = new CopyOnWriteArrayList<>();
    private final Thread outPump;
    private final Thread errPump;

    private AgentChild(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.outPump = pump(process.getInputStream(), "out", out, true);
        this.errPump = pump(process.getErrorStream(), "err", err, false);
    }

    /** The agent jar the build made (failsafe passes its path). */
    static Path agentJar() {
        Path jar = Path.of(System.getProperty("fencedtest.agent.jar", "../agent/target/fenced-agent.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("agent jar not built: " + jar.toAbsolutePath());
        }
        return jar;
    }

    /** The test class path, as real entries (failsafe may hand this JVM a manifest-only jar). */
    static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /**
     * @param agentArgument null: no agent; "": the agent without arguments; else its argument
     */
    static AgentChild start(String agentArgument, List<String> jvmOptions, Class<?> main, String... args)
            throws IOException {
        return start(agentArgument, jvmOptions, null, main.getName(), args);
    }

    /** @param extraClassPath put before the test class path (classes a test generated), or null */
    static AgentChild start(
            String agentArgument, List<String> jvmOptions, String extraClassPath, String main, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        if (agentArgument != null) {
            command.add(
                    "-javaagent:" + agentJar().toAbsolutePath() + (agentArgument.isEmpty() ? "" : "=" + agentArgument));
        }
        command.addAll(jvmOptions);
        command.add("--add-opens=java.base/java.lang=ALL-UNNAMED"); // for the leak check, as in the test JVM
        command.add("-cp");
        command.add(extraClassPath == null ? classPath() : extraClassPath + java.io.File.pathSeparator + classPath());
        command.add(LeakCheckedMain.class.getName()); // the suite-wide invariant, checked as the child exits
        command.add(main);
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("FENCED_") && !k.equals("FENCED_TEST_JDBC_URL"));
        return new AgentChild(pb.start());
    }

    /** The next stdout line starting with {@code prefix}. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = end - System.nanoTime();
            String line = left <= 0 ? null : pending.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("child " + process.pid() + " did not say '" + prefix + "' within " + timeout
                        + "; stdout " + out + ", stderr " + err);
            }
            if (line.equals(EOF)) {
                throw new AssertionError("child " + process.pid() + " ended before saying '" + prefix + "'; stdout "
                        + out + ", stderr " + err);
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** Waits for the child to end and its output to be read; returns the exit status. */
    int await(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("child " + process.pid() + " still running after " + timeout + "; stdout " + out
                    + ", stderr " + err);
        }
        outPump.join(5000);
        errPump.join(5000);
        return process.exitValue();
    }

    List<String> stdout() {
        return out;
    }

    List<String> stderr() {
        return err;
    }

    /** The classes named in a {@code -Xlog:class+load:file=<log>} file, in the order the JVM loaded them. */
    static List<String> loadedClasses(Path log) throws IOException {
        List<String> classes = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            // [0.012s][info][class,load] java.lang.Object source: shared objects file
            int start = line.indexOf("] ", line.indexOf("[class,load]")) + 2;
            int end = line.indexOf(' ', start);
            if (start > 1 && end > start) {
                classes.add(line.substring(start, end));
            }
        }
        return classes;
    }

    /** Stdout lines starting with {@code prefix}, without it. */
    List<String> lines(String prefix) {
        List<String> r = new ArrayList<>();
        for (String l : out) {
            if (l.startsWith(prefix)) {
                r.add(l.substring(prefix.length()));
            }
        }
        return r;
    }

    /**
     * Kills the child if it still runs; else fails when it reported a leak as it exited ({@link LeakCheckedMain}):
     * a pooled thread left with a binding, in the child as in a test JVM.
     */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            return;
        }
        errPump.join(5000);
        String leak = LeakCheckedMain.leakIn(err);
        if (leak != null) {
            throw new AssertionError("child " + process.pid() + ": " + leak);
        }
    }

    private Thread pump(InputStream in, String stream, List<String> keep, boolean handshake) {
        Thread t = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            System.err.println("[child " + process.pid() + " " + stream + "] " + line);
                            keep.add(line);
                            if (handshake) {
                                pending.add(line);
                            }
                        }
                    } catch (IOException ignored) {
                        // the child is gone
                    } finally {
                        if (handshake) {
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
