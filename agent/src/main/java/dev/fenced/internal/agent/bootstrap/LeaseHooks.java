package dev.fenced.internal.agent.bootstrap;

/**
 * The agent's lease runtime as seen from advice inlined into a lease-bound method. Implemented in the
 * class loader that holds the application's fenced-driver, so leases and tokens go through that driver.
 */
public interface LeaseHooks {

    /**
     * Called before the body of a method bound to lease {@code lease}.
     *
     * @return an {@link AutoCloseable} to close after the body, another non-null object when the body runs
     *         inside a lease this thread already holds, or null when the body must be skipped
     * @throws RuntimeException when the lease cannot be had and the body must not run
     */
    Object enter(String lease, String method);
}
