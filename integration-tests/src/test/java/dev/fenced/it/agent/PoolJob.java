package dev.fenced.it.agent;

import dev.fenced.Fencing;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A lease-bound job ({@code fenced.lease.pooled.method=dev.fenced.it.agent.PoolJob#recurse}) that calls itself on a
 * pool thread: the inner calls run inside the lease the outer call holds, they do not try to take it again.
 */
public class PoolJob {

    final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final String url;

    public PoolJob(String url) {
        this.url = url;
    }

    /** Writes, then runs the next level on the pool; returns how many levels ran their body. */
    public int recurse(int depth) throws Exception {
        System.out.println("token recurse-" + depth + " "
                + (Fencing.currentToken().isPresent() ? Fencing.currentToken().getAsLong() : "none"));
        System.out.println("write recurse-" + depth + " " + LeakMain.write(8));
        if (depth == 0) {
            return 1;
        }
        Integer inner = pool.submit(() -> recurse(depth - 1)).get();
        return 1 + (inner == null ? 0 : inner);
    }
}
