package dev.fenced.bench;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * One benchmark thread: its own slice of the rows (so two clients never wait on each other's row locks), a
 * new amount per write, and {@link BenchEnv#TOKEN} bound for fenced writes the whole trial, as a lease
 * would bind it. Bound on every path alike; the raw paths never read it.
 */
@State(Scope.Thread)
public class Client {

    private int base;
    private int span;
    private long amount;
    private SplittableRandom random;
    private FencingScope scope;

    @Setup(Level.Trial)
    public void setUp(ThreadParams thread) {
        span = BenchEnv.ROWS / thread.getThreadCount();
        base = 1 + thread.getThreadIndex() * span;
        random = new SplittableRandom(31L * thread.getThreadIndex() + System.nanoTime());
        scope = Fencing.bind(BenchEnv.TOKEN);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        scope.close();
    }

    /** A row of this thread's slice. */
    public int id() {
        return base + random.nextInt(span);
    }

    /** The first of {@code n} consecutive rows of this thread's slice. */
    public int firstOf(int n) {
        return base + random.nextInt(span - n + 1);
    }

    public long amount() {
        return ++amount;
    }
}
