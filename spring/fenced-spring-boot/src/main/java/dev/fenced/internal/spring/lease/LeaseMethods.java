package dev.fenced.internal.spring.lease;

import dev.fenced.FencedProperty;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.spring.WithLease;
import dev.fenced.spring.config.FencedConfigurationException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Which methods run under which lease: {@link WithLease} on the method or its class, and the configured
 * {@code fenced.lease.<name>.method} keys (every method of that name declared by that class, as the agent reads
 * them). Looked up once per method.
 */
public final class LeaseMethods {

    private static final LeaseSpec NONE = new LeaseSpec("", java.time.Duration.ZERO, LeaseMethod.OnBusy.SKIP, "");

    private final Collection<LeaseMethod> configured;
    private final Map<Method, LeaseSpec> cache = new ConcurrentHashMap<>();

    /** @param configured the configured lease methods, or none when the agent runs them itself */
    public LeaseMethods(Collection<LeaseMethod> configured) {
        this.configured = List.copyOf(configured);
    }

    public Collection<LeaseMethod> configured() {
        return configured;
    }

    /** The lease {@code method} (as declared by the bean's class) runs under, or null. */
    @Nullable
    LeaseSpec find(Method method) {
        LeaseSpec spec = cache.computeIfAbsent(method, this::resolve);
        return spec == NONE ? null : spec;
    }

    private LeaseSpec resolve(Method method) {
        WithLease a = AnnotatedElementUtils.findMergedAnnotation(method, WithLease.class);
        if (a == null) {
            a = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), WithLease.class);
        }
        if (a != null) {
            String where = "@WithLease on " + method.getDeclaringClass().getName() + "#" + method.getName();
            if (a.name().isBlank()) {
                throw new FencedConfigurationException("fenced: " + where + " has an empty name");
            }
            try {
                return new LeaseSpec(
                        a.name(),
                        FencedProperty.parseDuration(a.ttl()),
                        LeaseMethod.OnBusy.valueOf(a.onBusy().name()),
                        where);
            } catch (IllegalArgumentException e) {
                throw new FencedConfigurationException("fenced: " + where + ": ttl " + e.getMessage());
            }
        }
        List<LeaseSpec> matches = new ArrayList<>();
        for (LeaseMethod m : configured) {
            if (m.methodName().equals(method.getName())
                    && m.className().equals(method.getDeclaringClass().getName())) {
                matches.add(new LeaseSpec(m.name(), m.ttl(), m.onBusy(), FencedProperty.LEASE_METHOD.keyFor(m.name())));
            }
        }
        if (matches.size() > 1) {
            throw new FencedConfigurationException(
                    "fenced: " + method.getDeclaringClass().getName() + "#" + method.getName()
                            + " is bound to more than one lease: "
                            + matches.stream().map(LeaseSpec::declaredBy).toList());
        }
        return matches.isEmpty() ? NONE : matches.get(0);
    }
}
