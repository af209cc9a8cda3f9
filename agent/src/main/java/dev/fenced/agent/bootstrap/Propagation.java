package dev.fenced.agent.bootstrap;

import dev.fenced.bootstrap.FencedContextStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the propagation advice calls. Capture happens where a task is handed over (submitted, forked, a
 * virtual thread created for it), on the handing thread; the captured token cell is bound for that task's
 * run only and the worker's previous binding restored afterwards. When nothing is bound at hand-over, tasks
 * are passed through untouched: code that does not use fencing sees no wrapper and no allocation.
 */
public final class Propagation {

    private Propagation() {
    }

    /** The cell bound to the calling thread, or null. */
    static AtomicLong capture() {
        return FencedContextStore.CURRENT.get();
    }

    /** Binds {@code cell}; returns what was bound before. */
    static AtomicLong bind(AtomicLong cell) {
        ThreadLocal<AtomicLong> current = FencedContextStore.CURRENT;
        AtomicLong previous = current.get();
        if (previous != cell) {
            current.set(cell);
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

    /** A Runnable that runs with the caller's binding; the same object when nothing is bound. */
    public static Runnable wrap(Runnable task) {
        if (task == null || task instanceof Wrappers.Wrapped) {
            return task;
        }
        AtomicLong cell = capture();
        return cell == null ? task : new Wrappers.FencedRunnable(task, cell);
    }

    public static <T> Callable<T> wrap(Callable<T> task) {
        if (task == null || task instanceof Wrappers.Wrapped) {
            return task;
        }
        AtomicLong cell = capture();
        return cell == null ? task : new Wrappers.FencedCallable<>(task, cell);
    }

    /**
     * For {@code execute(Runnable)} of executors that queue the object itself. Futures are left alone (a
     * FutureTask captured at construction, and code that casts {@code shutdownNow()}'s list back to Future
     * keeps working), and so are CompletableFuture's own tasks, whose function was wrapped when the stage was
     * created.
     */
    public static Runnable forExecute(Runnable task) {
        if (task instanceof Future || task instanceof CompletableFuture.AsynchronousCompletionTask) {
            return task;
        }
        return wrap(task);
    }

    /**
     * For a virtual thread built around {@code task}. A pool worker (ThreadPoolExecutor's Worker, an
     * AbstractQueuedSynchronizer) is never wrapped: it would carry the submitting thread's token for the
     * worker's whole life.
     */
    public static Runnable forVirtualThread(Runnable task) {
        if (task instanceof AbstractQueuedSynchronizer) {
            return task;
        }
        return forExecute(task);
    }

    /** ForkJoinPool's Runnable entry points: ForkJoinTasks are tracked by identity, others wrapped. */
    public static Runnable forForkJoin(Runnable task) {
        if (task instanceof ForkJoinTask) {
            captureTask((ForkJoinTask<?>) task);
            return task;
        }
        return forExecute(task);
    }

    /** Remembers the caller's binding for a ForkJoinTask that is being forked or submitted. */
    public static void captureTask(ForkJoinTask<?> task) {
        if (task == null || task instanceof CompletableFuture.AsynchronousCompletionTask) {
            return;
        }
        AtomicLong cell = capture();
        if (cell != null) {
            TaskContexts.put(task, cell);
        }
    }

    /** Entering ForkJoinTask.doExec: binds what was captured for it; null when nothing was. */
    public static Object enterTask(ForkJoinTask<?> task) {
        AtomicLong cell = TaskContexts.take(task);
        if (cell == null) {
            return null;
        }
        AtomicLong previous = bind(cell);
        return previous == null ? NOTHING : previous;
    }

    /** Leaving ForkJoinTask.doExec, with what {@link #enterTask} returned. */
    public static void exitTask(Object entered) {
        if (entered != null) {
            restore(entered == NOTHING ? null : (AtomicLong) entered);
        }
    }

    private static final Object NOTHING = new Object();

    /** invokeAll/invokeAny of ForkJoinPool: a copy with every Callable wrapped, or the same collection. */
    public static Collection<?> wrapCallables(Collection<?> tasks) {
        if (tasks == null || capture() == null) {
            return tasks;
        }
        List<Object> wrapped = new ArrayList<>(tasks.size());
        for (Object t : tasks) {
            wrapped.add(t instanceof Callable ? wrap((Callable<?>) t) : t);
        }
        return wrapped;
    }

    /**
     * The function of a CompletableFuture async stage, wrapped in the one functional interface it implements.
     * An object implementing several of them is passed through unchanged (no wrapper could stand in for it
     * everywhere), and so is everything when nothing is bound.
     */
    public static Object wrapFunctional(Object fn) {
        if (fn == null || fn instanceof Wrappers.Wrapped) {
            return fn;
        }
        AtomicLong cell = capture();
        if (cell == null) {
            return fn;
        }
        int kinds = 0;
        Object wrapped = fn;
        if (fn instanceof Runnable) {
            kinds++;
            wrapped = new Wrappers.FencedRunnable((Runnable) fn, cell);
        }
        if (fn instanceof Supplier) {
            kinds++;
            wrapped = new Wrappers.FencedSupplier<>((Supplier<?>) fn, cell);
        }
        if (fn instanceof Function) {
            kinds++;
            wrapped = new Wrappers.FencedFunction<>((Function<?, ?>) fn, cell);
        }
        if (fn instanceof Consumer) {
            kinds++;
            wrapped = new Wrappers.FencedConsumer<>((Consumer<?>) fn, cell);
        }
        if (fn instanceof BiFunction) {
            kinds++;
            wrapped = new Wrappers.FencedBiFunction<>((BiFunction<?, ?, ?>) fn, cell);
        }
        if (fn instanceof BiConsumer) {
            kinds++;
            wrapped = new Wrappers.FencedBiConsumer<>((BiConsumer<?, ?>) fn, cell);
        }
        if (fn instanceof Callable) {
            kinds++;
        }
        return kinds == 1 ? wrapped : fn;
    }
}
