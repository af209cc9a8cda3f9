package dev.fenced.internal.agent.advice;

import dev.fenced.internal.agent.bootstrap.LeaseGate;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined into a lease-bound application method. The body runs only when enter returns non-null
 * (the lease is ours, or this thread already holds it); otherwise it is skipped and the method returns
 * null, 0 or false. A lease that cannot be had throws from enter, so the body never runs unfenced.
 * Enter is deliberately not suppressed.
 */
public final class LeaseAdvice {

    private LeaseAdvice() {}

    /** Bound to the lease's name for each configured method. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    public @interface LeaseName {}

    @Advice.OnMethodEnter(skipOn = Advice.OnDefaultValue.class)
    static Object enter(@LeaseName String lease, @Advice.Origin("#m") String method, @Advice.Origin Class<?> type) {
        return LeaseGate.enter(lease, method, type);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object entered) {
        LeaseGate.exit(entered);
    }
}
