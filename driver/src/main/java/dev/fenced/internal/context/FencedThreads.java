package dev.fenced.internal.context;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one way fenced makes threads (the static methods), and the executors of one owner (an instance: a lease
 * manager's, or a stand-alone lease store's), which {@link #close()} shuts down with it. Every thread is:
 * <ul>
 *   <li>named, so a thread dump says whose it is;</li>
 *   <li>a daemon: fenced's threads never keep a JVM alive;</li>
 *   <li>without a context class loader ({@code null}): a thread that outlives a redeployed web application must
 *       not keep the application's class loader (whichever called first) alive, and fenced never loads classes
 *       through it;</li>
 *   <li>created with no token bound on the creating thread, so nothing of the caller's fencing state can reach it.</li>
 * </ul>
 */
public final class FencedThreads implements AutoCloseable {

    private final List<ExecutorService> executors = new CopyOnWriteArrayList<>();

    /** Threads named exactly {@code name}. */
    public static ThreadFactory named(String name) {
        return r -> newThread(name, r);
    }

    /** A thread for {@code work} (not started): for work that has no executor, such as a shutdown hook. */
    public static Thread newThread(String name, Runnable work) {
        AtomicLong previous = ContextAccess.swap(null);
        try {
            Thread t = new Thread(work, name);
            t.setDaemon(true);
            t.setContextClassLoader(null);
            return t;
        } finally {
            ContextAccess.swap(previous);
        }
    }

    /** Starts {@code work} on a thread of its own, for one-off work outside this owner's executors. */
    public static void start(String name, Runnable work) {
        newThread(name, work).start();
    }

    /** A timer of one thread; cancelled ticks leave its queue at once. */
    public ScheduledThreadPoolExecutor timer(String name) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, named(name));
        timer.setRemoveOnCancelPolicy(true);
        return owned(timer);
    }

    /**
     * A thread per task, up to {@code max} at once (a task beyond is rejected: nothing queues behind a stuck one);
     * idle threads die after {@code keepAliveSeconds}, so there are none while there is no work.
     */
    public ThreadPoolExecutor pool(String name, int max, long keepAliveSeconds) {
        return owned(new ThreadPoolExecutor(
                0, max, keepAliveSeconds, TimeUnit.SECONDS, new SynchronousQueue<>(), named(name)));
    }

    private <E extends ExecutorService> E owned(E executor) {
        executors.add(executor);
        return executor;
    }

    /**
     * Shuts down every executor made here: no new tasks; tasks already running or queued finish (an owner that
     * must stop work at once shuts that executor down itself first). Idempotent.
     */
    @Override
    public void close() {
        for (ExecutorService e : executors) {
            e.shutdown();
        }
    }
}
