package dev.fenced.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Every call of this bean method runs under fenced lease {@link #name}: the lease is taken before the body runs,
 * its token bound to the calling thread (so the body's writes to protected tables carry it, and tasks handed to
 * Spring's executors and {@code @Async} carry it too), renewed while the body runs, released afterwards. A stale
 * holder's late write is refused by the database. The same as {@code fenced.lease.<name>.method} for the agent,
 * through Spring AOP, so it works in a fat jar without the agent.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @WithLease(name = "nightly-totals", ttl = "5m")
 * public void nightlyTotals() { ... }
 * }</pre>
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WithLease {

    /** The lease name; every instance of the application competes for it. */
    String name();

    /** Lease length ({@code 30s}, {@code 5m}, {@code PT30S}); renewed every ttl/3 while the method runs. */
    String ttl() default "30s";

    /** What a call does while another holder has the lease. */
    OnBusy onBusy() default OnBusy.SKIP;

    /** As {@code fenced.lease.<name>.onBusy}. */
    enum OnBusy {
        /** The body does not run; the call returns null, 0 or false (like a scheduler lock). */
        SKIP,
        /** Wait for the lease up to one ttl, then fail with an IllegalStateException. */
        WAIT,
        /** Fail at once with an IllegalStateException naming the lease. */
        FAIL
    }
}
