package dev.fenced.it.locks.node;

import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.List;

/** A {@link SchedulerNode} in a child JVM, seen from the test: its lines, its runs, its signals. */
public final class NodeJvm implements AutoCloseable {

    /** A run that wrote its total: {@code RAN <token> <startNanos> <endNanos>}. */
    public record Run(String node, long token, long start, long end) {}

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final ChildJvm jvm;

    private NodeJvm(String name, ChildJvm jvm) {
        this.name = name;
        this.jvm = jvm;
    }

    /** Starts node {@code name} running {@code library}'s loop on {@code db}; returns once it says STARTED. */
    public static NodeJvm start(
            SchedulerLibrary library, String name, TestDatabase db, Duration ttl, boolean freezeFirst, LateWrite how)
            throws Exception {
        NodeJvm node = new NodeJvm(
                name,
                ChildJvm.start(
                        SchedulerNode.class,
                        library.name(),
                        name,
                        db.fencedUrl("fenced.tables=totals"),
                        Long.toString(ttl.toMillis()),
                        Boolean.toString(freezeFirst),
                        how.name()));
        node.await("STARTED");
        return node;
    }

    public String name() {
        return name;
    }

    public ChildJvm jvm() {
        return jvm;
    }

    /** The next line starting with one of {@code prefixes}; fails after 30 s. */
    public String await(String... prefixes) throws InterruptedException {
        return jvm.awaitLine(TIMEOUT, prefixes);
    }

    /** Waits for the node's next successful run. */
    public Run awaitRun() throws InterruptedException {
        return run(await("RAN "));
    }

    /** Every successful run so far. */
    public List<Run> runs() {
        return lines("RAN ").stream().map(this::run).toList();
    }

    /** Every line so far that starts with {@code prefix}. */
    public List<String> lines(String prefix) {
        return jvm.stdout().stream().filter(l -> l.startsWith(prefix)).toList();
    }

    /** Stops the run loop gracefully (running jobs finish and report) and waits for the JVM to end. */
    public void stop() throws Exception {
        jvm.send("STOP");
        await("STOPPED");
        jvm.waitFor(TIMEOUT);
    }

    private Run run(String line) {
        String[] f = line.split(" ");
        return new Run(name, Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    @Override
    public void close() throws InterruptedException {
        jvm.close();
    }
}
