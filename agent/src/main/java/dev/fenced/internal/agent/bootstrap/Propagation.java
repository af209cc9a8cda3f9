package dev.fenced.internal.agent.bootstrap;

import dev.fenced.internal.bootstrap.FencedContextStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TimerTask;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the propagation advice calls. The rule, on every path: a hand-over captures the handing thread's state
 * (a token cell, or nothing), and the task runs with exactly that state, the running thread's own restored
 * afterwards. An unfenced section is never handed over: it is for the calling thread and the section only, so
 * a task handed over inside one carries nothing (its protected writes are refused in enforce mode). Every task
 * is wrapped, also when nothing is bound: a task handed over with nothing must run with nothing, and whatever
 * it leaves bound must not stay on the worker.
 */
public final class Propagation {

    private Propagation() {}

    /** What a hand-over on the calling thread carries: its token cell (live or lost), or null for nothing. */
    static AtomicLong capture() {
        AtomicLong cell = FencedContextStore.CURRENT.get();
        return cell == null || cell.get() == UNFENCED ? null : cell;
    }

    /** The cell value of {@code Fencing.unfenced} (dev.fenced.internal.context.TokenCells.UNFENCED). */
    private static final long UNFENCED = 0L;

    /** Binds {@code cell} (null: nothing); returns what was bound before. */
    static AtomicLong bind(AtomicLong cell) {
        ThreadLocal<AtomicLong> current = FencedContextStore.CURRENT;
        AtomicLong previous = current.get();
        if (previous != cell) {
            restore(cell);
        }
        return previous;
    }

    /** Restores what {@link #bind} returned. */
    static void restore(AtomicLong previous) {
        if (previous == null) {
            FencedContextStore.CURRENT.remove();
        } else {
            FencedContextStore.CURRENT.set(previous);
        }
    }

    /** A Runnable that runs with the caller's state. */
    public static Runnable wrap(Runnable task) {
        if (task == null || task instanceof Wrappers.Wrapped) {
            return task;
        }
        return new Wrappers.FencedRunnable(task, capture());
    }

    public static <T> Callable<T> wrap(Callable<T> task) {
        if (task == null || task instanceof Wrappers.Wrapped) {
            return task;
        }
        return new Wrappers.FencedCallable<>(task, capture());
    }

    /**
     * For {@code execute(Runnable)} of executors that queue the object itself. A FutureTask captured when it
     * was built and CompletableFuture's own tasks run a function wrapped when the stage was created; they are
     * passed as they are. Any other RunnableFuture (Guava's pattern) is wrapped in one that is still a
     * RunnableFuture, so code that casts {@code shutdownNow()}'s list back to Future keeps working.
     */
    public static Runnable forExecute(Runnable task) {
        if (task instanceof FutureTask
                || task instanceof CompletableFuture.AsynchronousCompletionTask
                || task instanceof Wrappers.Wrapped) {
            return task;
        }
        if (task instanceof RunnableFuture) {
            return new Wrappers.FencedRunnableFuture<>((RunnableFuture<?>) task, capture());
        }
        return wrap(task);
    }

    /**
     * For a virtual thread built around {@code task}. A pool worker (ThreadPoolExecutor's Worker, an
     * AbstractQueuedSynchronizer) is never wrapped: it runs tasks that each carry their own state.
     */
    public static Runnable forVirtualThread(Runnable task) {
        if (task instanceof AbstractQueuedSynchronizer) {
            return task;
        }
        return forExecute(task);
    }

    /**
     * {@code Thread.startVirtualThread}'s task (the agent instruments that method with plain ASM, see the agent's
     * VirtualThreadStart): {@link #forVirtualThread}, whose failure must never break the caller, as advice that
     * suppresses its own failures would not.
     */
    public static Runnable forVirtualThreadStart(Runnable task) {
        try {
            return forVirtualThread(task);
        } catch (Throwable t) {
            return task;
        }
    }

    /** ForkJoinPool's Runnable entry points: ForkJoinTasks are tracked by identity, others wrapped. */
    public static Runnable forForkJoin(Runnable task) {
        if (task instanceof ForkJoinTask) {
            captureTask((ForkJoinTask<?>) task);
            return task;
        }
        return forExecute(task);
    }

    /**
     * Remembers the caller's state for a ForkJoinTask that is being built, forked or submitted (the last
     * hand-over wins). A task built and run by the same thread ({@code invoke()}, {@code invokeAll}, a parallel
     * stream's root) carries its builder's state.
     */
    public static void captureTask(ForkJoinTask<?> task) {
        if (task == null || task instanceof CompletableFuture.AsynchronousCompletionTask) {
            return;
        }
        TaskContexts.put(task, capture());
    }

    /**
     * Entering ForkJoinTask.doExec, on whichever thread runs it (a worker, a helping or joining thread): binds
     * exactly what was captured for it, nothing if nothing was. Returns what to restore.
     */
    public static Object enterTask(ForkJoinTask<?> task) {
        AtomicLong previous = bind(TaskContexts.take(task));
        return previous == null ? NOTHING : previous;
    }

    /** Leaving ForkJoinTask.doExec, with what {@link #enterTask} returned. */
    public static void exitTask(Object entered) {
        if (entered != null) {
            restore(entered == NOTHING ? null : (AtomicLong) entered);
        }
    }

    private static final Object NOTHING = new Object();

    /**
     * {@code java.util.Timer} scheduling a TimerTask: remembered by identity for every run (a TimerTask cannot
     * be scheduled twice, so a periodic one keeps its capture until it is collected).
     */
    public static void captureTimerTask(TimerTask task) {
        if (task != null) {
            TaskContexts.put(task, capture());
        }
    }

    /** Replaces {@code task.run()} in the Timer's thread: the run carries what was captured when it was scheduled. */
    public static void runTimerTask(TimerTask task) {
        AtomicLong previous = bind(TaskContexts.peek(task));
        try {
            task.run();
        } finally {
            restore(previous);
        }
    }

    /** invokeAll/invokeAny over a collection of Callables: a copy with every Callable wrapped. */
    public static Collection<?> wrapCallables(Collection<?> tasks) {
        if (tasks == null) {
            return tasks;
        }
        List<Object> wrapped = new ArrayList<>(tasks.size());
        for (Object t : tasks) {
            wrapped.add(t instanceof Callable ? wrap((Callable<?>) t) : t);
        }
        return wrapped;
    }

    /**
     * The function of a CompletableFuture stage (async or not: a non-async stage runs on whichever thread
     * completes the future, so it too carries the registering thread's state), wrapped as the functional
     * interface {@code kind} that the method's parameter declares. An object implementing several interfaces
     * is wrapped as the one the method takes.
     */
    public static Object wrapFunctional(Object fn, String kind) {
        if (fn == null || fn instanceof Wrappers.Wrapped) {
            return fn;
        }
        AtomicLong cell = capture();
        switch (kind) {
            case "Runnable":
                return new Wrappers.FencedRunnable((Runnable) fn, cell);
            case "Supplier":
                return new Wrappers.FencedSupplier<>((Supplier<?>) fn, cell);
            case "Function":
                return new Wrappers.FencedFunction<>((Function<?, ?>) fn, cell);
            case "Consumer":
                return new Wrappers.FencedConsumer<>((Consumer<?>) fn, cell);
            case "BiFunction":
                return new Wrappers.FencedBiFunction<>((BiFunction<?, ?, ?>) fn, cell);
            case "BiConsumer":
                return new Wrappers.FencedBiConsumer<>((BiConsumer<?, ?>) fn, cell);
            default:
                throw new IllegalArgumentException("fenced agent: no wrapper for " + kind);
        }
    }
}
