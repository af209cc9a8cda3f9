package dev.fenced.spring.lease;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Runs a lease-bound bean method under its lease, with the agent's semantics: skip (returns null, 0 or false),
 * wait (up to one ttl) or fail when busy; a call inside the same lease on the same thread, or in a task that
 * carries its live token, just runs. The lease's token is bound for the body and released after it, whatever
 * it throws.
 */
public final class LeaseInterceptor implements MethodInterceptor {

    private static final System.Logger LOG = System.getLogger("dev.fenced.spring");

    private final LeaseMethods methods;
    private final ObjectProvider<LeaseManager> leases;
    /** The leases this application holds now, by name, whichever thread took them. */
    private final Map<String, Lease> holding = new ConcurrentHashMap<>();

    public LeaseInterceptor(LeaseMethods methods, ObjectProvider<LeaseManager> leases) {
        this.methods = methods;
        this.leases = leases;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> target = invocation.getThis() == null ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target);
        LeaseSpec spec = methods.find(method);
        if (spec == null || carriesHeld(spec.name())) {
            return invocation.proceed();
        }
        String what = method.getDeclaringClass().getName() + "#" + method.getName();
        Lease lease = acquire(spec, what);
        if (lease == null) {
            LOG.log(System.Logger.Level.INFO, "fenced: lease ''{0}'' is held elsewhere; skipped {1}", spec.name(), what);
            return skipped(method.getReturnType());
        }
        holding.put(spec.name(), lease);
        try (lease) {
            return invocation.proceed();
        } finally {
            holding.remove(spec.name(), lease);
        }
    }

    private Lease acquire(LeaseSpec spec, String what) {
        LeaseManager manager = leases.getObject();
        try {
            switch (spec.onBusy()) {
                case WAIT:
                    try {
                        return manager.acquire(spec.name(), spec.ttl(), spec.ttl());
                    } catch (FencingException e) {
                        if (FencingException.LEASE_TIMEOUT.equals(e.getSQLState())) {
                            throw new IllegalStateException("fenced: lease '" + spec.name() + "' stayed busy for "
                                    + spec.ttl().toMillis() + " ms; " + what + " did not run: " + e.getMessage(), e);
                        }
                        throw e;
                    }
                case FAIL: {
                    Optional<Lease> got = manager.tryAcquire(spec.name(), spec.ttl());
                    if (got.isEmpty()) {
                        throw new IllegalStateException("fenced: lease '" + spec.name() + "' is held elsewhere; "
                                + what + " did not run");
                    }
                    return got.get();
                }
                default:
                    return manager.tryAcquire(spec.name(), spec.ttl()).orElse(null);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("fenced: could not acquire lease '" + spec.name() + "' for " + what
                    + ": " + e.getMessage(), e);
        }
    }

    /** This thread runs inside lease {@code name} already (re-entry, or a task that carries its live token). */
    private boolean carriesHeld(String name) {
        Lease lease = holding.get(name);
        if (lease == null) {
            return false;
        }
        OptionalLong token = Fencing.currentToken();
        return token.isPresent() && token.getAsLong() == lease.token() && lease.isValid();
    }

    /** What a skipped call returns: the type's zero. */
    static Object skipped(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0d;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == short.class) {
            return (short) 0;
        }
        return 0;
    }
}
