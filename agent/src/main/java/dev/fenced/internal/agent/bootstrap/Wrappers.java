package dev.fenced.internal.agent.bootstrap;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Task wrappers: each binds the state captured at hand-over (a cell, or nothing) for the duration of one call
 * and restores the running thread's previous binding afterwards, whatever the task did to it. The cell object itself is
 * shared, so a lease lost while the task runs poisons the task's writes too.
 */
final class Wrappers {

    private Wrappers() {}

    /** Marks a wrapper, so that nothing is wrapped twice. */
    interface Wrapped {}

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }

    static final class FencedRunnable implements Runnable, Wrapped {
        private final Runnable task;
        private final AtomicLong cell;

        FencedRunnable(Runnable task, AtomicLong cell) {
            this.task = task;
            this.cell = cell;
        }

        @Override
        public void run() {
            AtomicLong previous = Propagation.bind(cell);
            try {
                task.run();
            } finally {
                Propagation.restore(previous);
            }
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    /** A RunnableFuture that is not a FutureTask: still a RunnableFuture, its run carries the state. */
    static final class FencedRunnableFuture<T> implements RunnableFuture<T>, Wrapped {
        private final RunnableFuture<T> task;
        private final AtomicLong cell;

        FencedRunnableFuture(RunnableFuture<?> task, AtomicLong cell) {
            this.task = cast(task);
            this.cell = cell;
        }

        @Override
        public void run() {
            AtomicLong previous = Propagation.bind(cell);
            try {
                task.run();
            } finally {
                Propagation.restore(previous);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return task.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return task.isCancelled();
        }

        @Override
        public boolean isDone() {
            return task.isDone();
        }

        @Override
        public T get() throws InterruptedException, ExecutionException {
            return task.get();
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return task.get(timeout, unit);
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    static final class FencedCallable<T> implements Callable<T>, Wrapped {
        private final Callable<T> task;
        private final AtomicLong cell;

        FencedCallable(Callable<T> task, AtomicLong cell) {
            this.task = task;
            this.cell = cell;
        }

        @Override
        public T call() throws Exception {
            AtomicLong previous = Propagation.bind(cell);
            try {
                return task.call();
            } finally {
                Propagation.restore(previous);
            }
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    static final class FencedSupplier<T> implements Supplier<T>, Wrapped {
        private final Supplier<T> task;
        private final AtomicLong cell;

        FencedSupplier(Supplier<?> task, AtomicLong cell) {
            this.task = cast(task);
            this.cell = cell;
        }

        @Override
        public T get() {
            AtomicLong previous = Propagation.bind(cell);
            try {
                return task.get();
            } finally {
                Propagation.restore(previous);
            }
        }
    }

    static final class FencedFunction<A, R> implements Function<A, R>, Wrapped {
        private final Function<A, R> task;
        private final AtomicLong cell;

        FencedFunction(Function<?, ?> task, AtomicLong cell) {
            this.task = cast(task);
            this.cell = cell;
        }

        @Override
        public R apply(A a) {
            AtomicLong previous = Propagation.bind(cell);
            try {
                return task.apply(a);
            } finally {
                Propagation.restore(previous);
            }
        }
    }

    static final class FencedConsumer<A> implements Consumer<A>, Wrapped {
        private final Consumer<A> task;
        private final AtomicLong cell;

        FencedConsumer(Consumer<?> task, AtomicLong cell) {
            this.task = cast(task);
            this.cell = cell;
        }

        @Override
        public void accept(A a) {
            AtomicLong previous = Propagation.bind(cell);
            try {
                task.accept(a);
            } finally {
                Propagation.restore(previous);
            }
        }
    }

    static final class FencedBiFunction<A, B, R> implements BiFunction<A, B, R>, Wrapped {
        private final BiFunction<A, B, R> task;
        private final AtomicLong cell;

        FencedBiFunction(BiFunction<?, ?, ?> task, AtomicLong cell) {
            this.task = cast(task);
            this.cell = cell;
        }

        @Override
        public R apply(A a, B b) {
            AtomicLong previous = Propagation.bind(cell);
            try {
                return task.apply(a, b);
            } finally {
                Propagation.restore(previous);
            }
        }
    }

    static final class FencedBiConsumer<A, B> implements BiConsumer<A, B>, Wrapped {
        private final BiConsumer<A, B> task;
        private final AtomicLong cell;

        FencedBiConsumer(BiConsumer<?, ?> task, AtomicLong cell) {
            this.task = cast(task);
            this.cell = cell;
        }

        @Override
        public void accept(A a, B b) {
            AtomicLong previous = Propagation.bind(cell);
            try {
                task.accept(a, b);
            } finally {
                Propagation.restore(previous);
            }
        }
    }
}
