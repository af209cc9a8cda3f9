package dev.fenced.internal.bootstrap;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one piece of thread-local state fenced keeps: the token cell bound to the current thread.
 *
 * <p>This class uses java.base types only, on purpose: the java agent appends a copy of it to the
 * bootstrap class path so that advice inlined into JDK classes (executors, CompletableFuture) and the
 * driver, loaded by whatever class loader the application uses, share one state. The driver looks for
 * the bootstrap copy first and falls back to this one (see {@code dev.fenced.internal.context.ContextAccess}).
 *
 * <p>The cell's value encodes the binding: {@code > 0} a live token, {@code 0} an explicit
 * {@code Fencing.unfenced} section, {@code < 0} the negated token of a lease that was lost. Sharing
 * the cell (rather than copying the number) is what lets a lost lease poison every task that carries it.
 */
public final class FencedContextStore {

    /** The cell bound to the current thread, or null when nothing is bound. */
    public static final ThreadLocal<AtomicLong> CURRENT = new ThreadLocal<>();

    /**
     * The first {@code jdbc:fenced:} connection the application opened, as {@code {String url, Properties info}}:
     * where the agent keeps its leases when {@code fenced.lease.url} is not set. Recorded only when this class
     * was placed on the bootstrap class path by the agent.
     */
    public static final AtomicReference<Object[]> FIRST_CONNECTION = new AtomicReference<>();

    private FencedContextStore() {}
}
