package dev.fenced.internal.spring.context;

import dev.fenced.internal.context.ContextAccess;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * fenced's thread-local token, for Micrometer context propagation: Spring's ContextPropagatingTaskDecorator
 * (executors, {@code @Async}) and Reactor's automatic context propagation carry it into the task, for the run
 * of that task only. The captured value is the binding itself, not a copy of the number, so a scope or lease
 * that closes (or a lease that is lost) revokes its token in tasks still running with it, as with the agent. A
 * task handed over inside {@code Fencing.unfenced} carries nothing ({@link ContextAccess#capture()}).
 * Registered through {@code META-INF/services/io.micrometer.context.ThreadLocalAccessor}.
 */
public final class FencedTokenAccessor implements ThreadLocalAccessor<AtomicLong> {

    /** The key the token travels under in a context snapshot. */
    public static final String KEY = "dev.fenced.token";

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public @Nullable AtomicLong getValue() {
        // never an unfenced section's marker: the task would write unfenced after the section closed
        return ContextAccess.capture();
    }

    @Override
    public void setValue(AtomicLong value) {
        ContextAccess.swap(value);
    }

    @Override
    public void setValue() {
        ContextAccess.swap(null);
    }

    @Override
    public void restore(AtomicLong previous) {
        ContextAccess.swap(previous);
    }

    @Override
    public void restore() {
        ContextAccess.swap(null);
    }
}
