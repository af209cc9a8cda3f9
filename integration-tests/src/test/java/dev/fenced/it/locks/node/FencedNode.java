package dev.fenced.it.locks.node;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.Pools;

/**
 * The database side of one application instance running a scheduler: its own HikariCP pool through the fenced
 * driver (totals protected), warmed up, and its own lease manager. The same in a test's JVM (several nodes side by
 * side) and in a node JVM.
 */
public class FencedNode implements AutoCloseable {

    public final HikariDataSource pool;
    public final LeaseManager leases;

    /**
     * @param renew whether leases are renewed in the background (held as long as the process runs) or not (the
     *              ttl bounds every run, and a run blocked past it stands for a frozen process)
     */
    public FencedNode(String fencedUrl, int poolSize, boolean renew) {
        pool = NightlyTotals.warmedUp(Pools.pool(fencedUrl, poolSize, "fenced-node"));
        LeaseManager.Builder builder = LeaseManager.builder(pool);
        leases = (renew ? builder : builder.withoutRenewal()).build();
    }

    @Override
    public void close() {
        leases.close();
        pool.close();
    }
}
