package dev.fenced.internal.lease;

import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.log.Logs;
import java.lang.System.Logger.Level;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Runs {@code onLost} callbacks on threads of the manager's own, each callback on a thread of its own, with no
 * token bound. User code may be slow or may block (stop a job, call a service): it must never delay the
 * renewer, which has other leases to keep, nor the thread that noticed the loss, nor another callback. The
 * threads exist only while there is work and die when idle.
 */
final class CallbackDispatcher {

    private static final System.Logger LOG = Logs.get("dev.fenced.lease");

    private final ThreadPoolExecutor executor;

    CallbackDispatcher(String threadName, FencedThreads threads) {
        // A thread per running callback (idle ones die): one callback that blocks must not hold back the others.
        // A pool of its own, not the store's workers: user code that blocks must not use up the store's threads.
        executor = threads.pool(threadName, Integer.MAX_VALUE, 10);
    }

    /** One registered callback; runs at most once whichever path (loss or late registration) gets it. */
    static final class Once<T> {
        private final Consumer<? super T> callback;
        private final AtomicBoolean ran = new AtomicBoolean();

        Once(Consumer<? super T> callback) {
            this.callback = callback;
        }

        boolean claim() {
            return ran.compareAndSet(false, true);
        }
    }

    <T> void dispatch(Once<T> once, T subject, String what) {
        if (!once.claim()) {
            return;
        }
        // With nothing bound: the callback belongs to no token, whatever thread noticed the loss carried.
        Runnable run = () -> ContextAccess.runWithNothingBound(() -> {
            try {
                once.callback.accept(subject);
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "fenced: an onLost callback of " + what + " failed", t);
            }
        });
        execute(run);
    }

    /** Runs {@code task} on the callback thread (or, once the manager is closing, on a thread of its own). */
    void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException closing) {
            // The manager is closing: still tell the application, on a thread of its own.
            FencedThreads.start("fenced-lease-callback", task);
        }
    }
}
