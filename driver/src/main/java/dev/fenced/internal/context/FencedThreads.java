package dev.fenced.internal.context;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The one way fenced makes threads (the static methods), and the executors of one owner (an instance: a lease
 * manager's, or a stand-alone lease store's), which {@link #close()} shuts down with it. Every thread is:
 * <ul>
 *   <li>named, so a thread dump says whose it is;</li>
 *   <li>a daemon: fenced's threads never keep a JVM alive;</li>
 *   <li>without a context class loader ({@code null}): a thread that outlives a redeployed web application must
 *       not keep the application's class loader (whichever called first) alive, and fenced never loads classes
 *       through it;</li>
 *   <li>created with no token bound on the creating thread, so nothing of the caller's fencing state can reach it;</li>
 *   <li>given its tasks with nothing bound: the executors made here build, queue and schedule every task with the
 *       submitting thread's binding set aside (restored exactly afterwards). Under the agent a hand-over captures
 *       the submitter's binding, and a renewal tick planned by a thread that had just bound a lease would carry
 *       that token to every later tick and store call; a task handed over with nothing runs with nothing, by
 *       construction, whoever submits it.</li>
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
        return handedOverClean(() -> {
            Thread t = new Thread(work, name);
            t.setDaemon(true);
            t.setContextClassLoader(null);
            return t;
        });
    }

    /** Starts {@code work} on a thread of its own, for one-off work outside this owner's executors. */
    public static void start(String name, Runnable work) {
        newThread(name, work).start();
    }

    /** A timer of one thread; cancelled ticks leave its queue at once. */
    public ScheduledThreadPoolExecutor timer(String name) {
        return owned(unownedTimer(name));
    }

    /** A timer of one thread that no owner shuts down (a JVM-wide one, such as the parser's watchdog). */
    public static ScheduledThreadPoolExecutor unownedTimer(String name) {
        ScheduledThreadPoolExecutor timer = new CleanTimer(named(name));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /**
     * A thread per task, up to {@code max} at once (a task beyond is rejected: nothing queues behind a stuck one);
     * idle threads die after {@code keepAliveSeconds}, so there are none while there is no work.
     */
    public ThreadPoolExecutor pool(String name, int max, long keepAliveSeconds) {
        return owned(new CleanPool(max, keepAliveSeconds, named(name)));
    }

    /** Runs a hand-over (building, queueing or scheduling a task) with nothing bound on the handing thread. */
    static <T> T handedOverClean(Supplier<T> handOver) {
        AtomicLong previous = ContextAccess.swap(null);
        try {
            return handOver.get();
        } finally {
            ContextAccess.swap(previous);
        }
    }

    /**
     * A pool whose tasks are built ({@code submit} goes through {@code newTaskFor}) and queued with nothing bound.
     */
    private static final class CleanPool extends ThreadPoolExecutor {
        CleanPool(int max, long keepAliveSeconds, ThreadFactory threads) {
            super(0, max, keepAliveSeconds, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
        }

        @Override
        public void execute(Runnable task) {
            handedOverClean(() -> {
                super.execute(task);
                return null;
            });
        }

        @Override
        protected <T> RunnableFuture<T> newTaskFor(Callable<T> task) {
            return handedOverClean(() -> super.newTaskFor(task));
        }

        @Override
        protected <T> RunnableFuture<T> newTaskFor(Runnable task, T value) {
            return handedOverClean(() -> super.newTaskFor(task, value));
        }
    }

    /**
     * A timer whose tasks are built and scheduled with nothing bound ({@code execute} and {@code submit} go
     * through {@code schedule}).
     */
    private static final class CleanTimer extends ScheduledThreadPoolExecutor {
        CleanTimer(ThreadFactory threads) {
            super(1, threads);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return handedOverClean(() -> super.schedule(task, delay, unit));
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> task, long delay, TimeUnit unit) {
            return handedOverClean(() -> super.schedule(task, delay, unit));
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit) {
            return handedOverClean(() -> super.scheduleAtFixedRate(task, initialDelay, period, unit));
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit) {
            return handedOverClean(() -> super.scheduleWithFixedDelay(task, initialDelay, delay, unit));
        }
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
