package dev.fenced.internal.lease;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.internal.config.LeaseMethod;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Internal, public only for the agent and the Spring starter, which both run methods under a lease: the one way a
 * lease-bound call gets in. A call inside a lease the thread already runs in (re-entry, or a task that carries
 * the live token of a lease held here) just runs; otherwise the lease is taken, and while it is held elsewhere the
 * call is skipped, waits up to one ttl, or fails, as {@code fenced.lease.<name>.onBusy} says. One instance per
 * runner (the agent's runtime for a class loader, the starter's interceptor).
 */
public final class LeaseBoundCalls {

    /** Returned for a call inside a lease this thread already runs in: nothing to release afterwards. */
    private static final AutoCloseable REENTERED = () -> {};

    private final System.Logger log;
    /** The leases taken on each thread, by name: a nested call on that thread runs inside them. */
    private final ThreadLocal<Map<String, Lease>> held = ThreadLocal.withInitial(HashMap::new);
    /** The leases held now, by name, whichever thread took them. */
    private final Map<String, Lease> holding = new ConcurrentHashMap<>();

    /** @param log where skipped calls are reported (the agent's logger, or the starter's) */
    public LeaseBoundCalls(System.Logger log) {
        this.log = log;
    }

    /**
     * Before the body of {@code method}, bound to lease {@code name}.
     *
     * @param leases the lease manager, asked for only when the lease must be taken
     * @return what to close after the body (whatever it throws), or null when the body must be skipped
     * @throws IllegalStateException when the lease cannot be had (busy with {@code FAIL}, still busy after one ttl
     *                               with {@code WAIT}, or the store failed): the body must not run
     */
    public @Nullable AutoCloseable enter(
            String name, Duration ttl, LeaseMethod.OnBusy onBusy, String method, Supplier<LeaseManager> leases) {
        Map<String, Lease> mine = held.get();
        Lease running = mine.get(name);
        if (running != null) {
            // Re-entry runs inside the lease it entered: once that is lost (expired, taken over) the body would
            // run with a dead token while another holder is live, so it does not run at all.
            if (!running.isValid()) {
                throw LeaseBoundCalls.<RuntimeException>undeclared(new LeaseLostException(
                        name, running.token(), method + " was re-entered after its lease was lost and did not run"));
            }
            return REENTERED;
        }
        if (carriesHeld(name)) {
            return REENTERED;
        }
        Lease lease;
        try {
            lease = acquire(leases.get(), name, ttl, onBusy, method);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "fenced: could not acquire lease '" + name + "' for " + method + ": " + e.getMessage(), e);
        }
        if (lease == null) {
            log.log(System.Logger.Level.INFO, "fenced: lease ''{0}'' is held elsewhere; skipped {1}", name, method);
            return null;
        }
        mine.put(name, lease);
        holding.put(name, lease);
        log.log(
                System.Logger.Level.DEBUG,
                "fenced: {0} runs under lease ''{1}'' (token {2})",
                method,
                name,
                lease.token());
        return () -> {
            mine.remove(name);
            holding.remove(name, lease);
            lease.close();
        };
    }

    /** The lease, or null when it is held elsewhere and the call is to be skipped. */
    private static @Nullable Lease acquire(
            LeaseManager leases, String name, Duration ttl, LeaseMethod.OnBusy onBusy, String method)
            throws SQLException {
        switch (onBusy) {
            case WAIT:
                try {
                    return leases.acquire(name, ttl, ttl);
                } catch (FencingException e) {
                    if (FencingException.LEASE_TIMEOUT.equals(e.getSQLState())) {
                        throw new IllegalStateException(
                                "fenced: lease '" + name + "' stayed busy for " + ttl.toMillis() + " ms; " + method
                                        + " did not run: " + e.getMessage(),
                                e);
                    }
                    throw e;
                }
            case FAIL: {
                Optional<Lease> got = leases.tryAcquire(name, ttl);
                if (got.isEmpty()) {
                    throw new IllegalStateException(
                            "fenced: lease '" + name + "' is held elsewhere; " + method + " did not run");
                }
                return got.get();
            }
            default:
                return leases.tryAcquire(name, ttl).orElse(null);
        }
    }

    /**
     * True when the calling thread carries the live token of lease {@code name} held here: a task the lease-bound
     * method handed to a pool calls it (or another method of that lease) again. Taking the lease once more would
     * find it busy with ourselves (skip would skip, wait would wait a whole ttl).
     */
    private boolean carriesHeld(String name) {
        Lease lease = holding.get(name);
        if (lease == null) {
            return false;
        }
        OptionalLong token = Fencing.currentToken();
        return token.isPresent() && token.getAsLong() == lease.token() && lease.isValid();
    }

    /**
     * Throws {@code e} (a checked exception) through {@link #enter}, whose callers (the agent's advice, the
     * starter's interceptor) run application methods that need not declare it: the caller of the lease method
     * gets the {@link LeaseLostException} itself, as from a write refused for the same reason.
     */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E undeclared(Throwable e) throws E {
        throw (E) e;
    }
}
