package net.javacrumbs.shedlock.support;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

/**
 * ShedLock's KeepAliveLockProvider with a shorter minimum lockAtMostFor than its public 30 s, through its own
 * package-private constructor, so a test sees several extensions in about a second.
 */
public final class ShortKeepAlive {

    private ShortKeepAlive() {}

    public static KeepAliveLockProvider of(ExtensibleLockProvider wrapped, ScheduledExecutorService executor) {
        return new KeepAliveLockProvider(wrapped, executor, Duration.ofMillis(100));
    }
}
