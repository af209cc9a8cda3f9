package dev.fenced.it.locks.node;

import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One scheduler node in a JVM of its own, to be frozen with a real SIGSTOP: the {@link SchedulerLibrary}'s run loop
 * runs the nightly-totals job (read, work, write) under its lease, through the fenced driver. Arguments:
 * {@code library name fencedUrl ttlMillis freezeFirst lateWrite} ({@link LateWrite}: how every run writes).
 *
 * <p>Says on stdout, one line each:
 * <ul>
 *   <li>{@code STARTED}: the run loop is running.</li>
 *   <li>{@code INSIDE <token>}: with freezeFirst, the node's first run has read the total under its lease and waits
 *       for {@code WRITE} on stdin before writing (the moment to freeze the node).</li>
 *   <li>{@code RAN <token> <startNanos> <endNanos>}: a run wrote its total; the times are {@code System.nanoTime()},
 *       which on Linux is the machine's monotonic clock, shared by every process, so runs of two nodes compare.</li>
 *   <li>{@code REFUSED <token> <exception> stale=<n> lost=<n> <message>}: a run's write was refused; the counts are
 *       this JVM's fenced.writes.stale and fenced.writes.lease_lost after it.</li>
 *   <li>{@code ABORTED <token>}: a run interrupted before its write (the loop stopping); {@code UNEXPECTED ...}.</li>
 *   <li>{@code STOPPED}: after {@code STOP} on stdin, the loop has stopped, running jobs finished.</li>
 * </ul>
 */
public final class SchedulerNode {

    /** A run's work between its read and its write: long enough that overlapping runs would show. */
    private static final Duration WORK = Duration.ofMillis(30);

    private static final CountDownLatch mayWrite = new CountDownLatch(1);
    private static final AtomicBoolean freezeNext = new AtomicBoolean();
    private static FencedNode node;
    private static LateWrite how;

    private SchedulerNode() {}

    public static void main(String[] args) throws Exception {
        SchedulerLibrary library = SchedulerLibrary.valueOf(args[0]);
        String name = args[1];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[3]));
        freezeNext.set(Boolean.parseBoolean(args[4]));
        how = LateWrite.valueOf(args[5]);
        node = new FencedNode(args[2], 4, library.renews());
        AutoCloseable loop = library.start(node, name, ttl, SchedulerNode::run);
        say("STARTED");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("STOP")) {
            if (line.equals("WRITE")) {
                mayWrite.countDown();
            }
        }
        mayWrite.countDown();
        loop.close();
        node.close();
        say("STOPPED");
        System.exit(0); // a library's non-daemon threads must not keep a stopped node alive
    }

    /** One run of the job, on the thread the library runs it on (which carries the lease's token). */
    static void run() {
        long start = System.nanoTime();
        long token = Fencing.currentToken().orElse(-1);
        try {
            NightlyTotals.run(node.pool, how, () -> work(token));
            say("RAN " + token + " " + start + " " + System.nanoTime());
        } catch (Exception e) {
            SQLException refused = NightlyTotals.refusal(e);
            if (Thread.currentThread().isInterrupted()) {
                say("ABORTED " + token); // the loop stopping cut the run short before its write
            } else if (refused == null) {
                e.printStackTrace();
                say("UNEXPECTED " + token + " " + e);
            } else {
                say("REFUSED " + token + " " + refused.getClass().getSimpleName()
                        + " stale=" + FencedStats.counters().get("fenced.writes.stale")
                        + " lost=" + FencedStats.counters().get("fenced.writes.lease_lost")
                        + " " + refused.getMessage());
            }
        }
    }

    /** Between the read and the write: the first run of a freezeFirst node waits for WRITE, the others work. */
    private static void work(long token) {
        try {
            if (freezeNext.compareAndSet(true, false)) {
                say("INSIDE " + token);
                mayWrite.await();
            } else {
                Thread.sleep(WORK.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void say(String line) {
        System.out.println(line);
    }
}
