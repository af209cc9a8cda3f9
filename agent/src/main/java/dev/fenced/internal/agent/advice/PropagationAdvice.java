package dev.fenced.internal.agent.advice;

import dev.fenced.internal.agent.bootstrap.Propagation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Collection;
import java.util.TimerTask;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinTask;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Advice inlined into JDK classes. It may reference java.base and the bootstrap helpers only; every advice
 * suppresses its own failures, so a bug here can never break an executor.
 */
public final class PropagationAdvice {

    private PropagationAdvice() {}

    /** FutureTask constructors: the callable runs with the constructing thread's binding. */
    public static final class FutureTaskConstructor {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.FieldValue(value = "callable", readOnly = false) Callable<?> callable) {
            Callable<?> wrapped = Propagation.wrap(callable);
            if (wrapped != callable) {
                callable = wrapped;
            }
        }
    }

    /**
     * {@code execute(Runnable)} of ThreadPoolExecutor, and the JDK's thread-per-task executor's
     * {@code start(Runnable)}, through which its execute and invokeAny go.
     */
    public static final class ExecuteRunnable {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) Runnable task) {
            Runnable wrapped = Propagation.forExecute(task);
            if (wrapped != task) {
                task = wrapped;
            }
        }
    }

    /** Virtual thread builders ({@code Thread.startVirtualThread} makes the same call: see the agent's VirtualThreadStart). */
    public static final class VirtualThreadTask {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) Runnable task) {
            Runnable wrapped = Propagation.forVirtualThread(task);
            if (wrapped != task) {
                task = wrapped;
            }
        }
    }

    /** ForkJoinPool methods taking a Runnable first. */
    public static final class ForkJoinRunnable {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) Runnable task) {
            Runnable wrapped = Propagation.forForkJoin(task);
            if (wrapped != task) {
                task = wrapped;
            }
        }
    }

    /** ForkJoinPool methods taking a Callable first. */
    public static final class ForkJoinCallable {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) Callable<?> task) {
            Callable<?> wrapped = Propagation.wrap(task);
            if (wrapped != task) {
                task = wrapped;
            }
        }
    }

    /** ForkJoinPool methods taking a ForkJoinTask first (invoke, execute, submit, ...). */
    public static final class ForkJoinTaskArgument {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(0) ForkJoinTask<?> task) {
            Propagation.captureTask(task);
        }
    }

    /** invokeAll/invokeAny over a collection of Callables (ForkJoinPool, thread-per-task executor). */
    public static final class ForkJoinCallables {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) Collection<?> tasks) {
            Collection<?> wrapped = Propagation.wrapCallables(tasks);
            if (wrapped != tasks) {
                tasks = wrapped;
            }
        }
    }

    /** ForkJoinTask.fork(). */
    public static final class Fork {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This ForkJoinTask<?> task) {
            Propagation.captureTask(task);
        }
    }

    /** ForkJoinTask.doExec(): every run of a ForkJoinTask, in a worker or by the joining thread. */
    public static final class DoExec {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.This ForkJoinTask<?> task) {
            return Propagation.enterTask(task);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object entered) {
            Propagation.exitTask(entered);
        }
    }

    /** Bound, per instrumented method, to the simple name of the functional interface its parameter declares. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    public @interface Kind {}

    /** CompletableFuture methods whose first parameter is the stage's function. */
    public static final class FunctionFirst {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(
                @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object fn,
                @Kind String kind) {
            Object wrapped = Propagation.wrapFunctional(fn, kind);
            if (wrapped != fn) {
                fn = wrapped;
            }
        }
    }

    /** CompletableFuture methods whose second parameter is the stage's function. */
    public static final class FunctionSecond {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(
                @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object fn,
                @Kind String kind) {
            Object wrapped = Propagation.wrapFunctional(fn, kind);
            if (wrapped != fn) {
                fn = wrapped;
            }
        }
    }

    /** ForkJoinTask constructors: a task built and run by the same thread carries its builder's state. */
    public static final class ForkJoinTaskConstructor {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This ForkJoinTask<?> task) {
            Propagation.captureTask(task);
        }
    }

    /** {@code Timer.sched(TimerTask, long, long)}, through which every schedule method goes. */
    public static final class TimerSchedule {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(0) TimerTask task) {
            Propagation.captureTimerTask(task);
        }
    }
}
