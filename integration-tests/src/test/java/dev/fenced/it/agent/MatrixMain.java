package dev.fenced.it.agent;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.FencedTestExtension;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimerTask;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Child main for the propagation matrix: every hand-over kind, from a submitter whose state is a token (42),
 * nothing, or an unfenced section, prints {@code cell <kind> <state> <what the task saw>}. Every pool's workers
 * are first dirtied by a task that leaves a scope (token 77) open, and every helping or completing thread other
 * than the submitter is bound to token 99, so a leak of either shows in the cell.
 */
public final class MatrixMain {

    static final long TOKEN = 42;
    static final long LEFTOVER = 77;
    static final long HELPER = 99;
    static final List<String> STATES = List.of("token", "none", "unfenced");

    private MatrixMain() {}

    /** What the calling thread's binding is: a token, none, unfenced or lost. */
    static String state() {
        AtomicLong cell = FencedTestExtension.boundCell();
        if (cell == null) {
            return "none";
        }
        long v = cell.get();
        return v > 0 ? Long.toString(v) : v == 0 ? "unfenced" : "lost";
    }

    /** Runs {@code handOver} with the submitter in {@code state}. */
    static String in(String state, Callable<String> handOver) throws Exception {
        switch (state) {
            case "token":
                try (FencingScope ignored = Fencing.bind(TOKEN)) {
                    return handOver.call();
                }
            case "unfenced":
                return Fencing.unfenced(handOver);
            default:
                return handOver.call();
        }
    }

    /** A task that leaves a scope open on whichever worker runs it: the next task there must not see it. */
    static final Runnable LEAVE_SCOPE_OPEN = () -> Fencing.bind(LEFTOVER);

    static final Callable<String> PROBE = MatrixMain::state;

    /** The probe for the helping rows: also says which thread ran it ({@code ranby} lines), to show who helped. */
    static final Callable<String> RAN_BY = () -> {
        String seen = state();
        System.out.println("ranby " + Thread.currentThread().getName() + " " + seen);
        return seen;
    };

    /** Runs {@code r} on a fresh thread bound to the helper token and waits for it. */
    static void onHelper(ThrowingRunnable r) throws Exception {
        Exception[] failed = new Exception[1];
        Thread t = new Thread(
                () -> {
                    try (FencingScope ignored = Fencing.bind(HELPER)) {
                        r.run();
                    } catch (Exception e) {
                        failed[0] = e;
                    }
                },
                "helper");
        t.start();
        t.join();
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** A RunnableFuture that is not a FutureTask (Guava's pattern). */
    static final class OwnFuture implements RunnableFuture<String> {
        final CompletableFuture<String> result = new CompletableFuture<>();

        @Override
        public void run() {
            result.complete(state());
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return result.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return result.isCancelled();
        }

        @Override
        public boolean isDone() {
            return result.isDone();
        }

        @Override
        public String get() throws java.util.concurrent.ExecutionException, InterruptedException {
            return result.get();
        }

        @Override
        public String get(long timeout, TimeUnit unit)
                throws java.util.concurrent.ExecutionException, InterruptedException,
                        java.util.concurrent.TimeoutException {
            return result.get(timeout, unit);
        }
    }

    /** A function implementing two functional interfaces. */
    static final class Both implements Supplier<String>, Runnable {
        @Override
        public String get() {
            return state();
        }

        @Override
        public void run() {}
    }

    /** Two functional interfaces, each of whose methods reports the state (issue 25, item 4). */
    static final class Twice implements Runnable, Function<Integer, String> {
        final CompletableFuture<String> ran = new CompletableFuture<>();

        @Override
        public void run() {
            ran.complete(state());
        }

        @Override
        public String apply(Integer ignored) {
            return state();
        }
    }

    static String distinct(IntStream s) {
        Set<String> seen = s.mapToObj(i -> state()).collect(Collectors.toCollection(TreeSet::new));
        return String.join(",", seen);
    }

    public static void main(String[] args) throws Exception {
        ExecutorService single = Executors.newSingleThreadExecutor();
        ScheduledExecutorService scheduled = Executors.newScheduledThreadPool(1);
        ForkJoinPool fj = new ForkJoinPool(1);
        ForkJoinPool common = ForkJoinPool.commonPool();
        java.util.Timer timer = new java.util.Timer(true);
        boolean virtual = Runtime.version().feature() >= 21;

        Map<String, Callable<String>> kinds = new LinkedHashMap<>();
        kinds.put("ThreadPoolExecutor.submit", () -> single.submit(PROBE).get());
        kinds.put("ThreadPoolExecutor.execute", () -> {
            CompletableFuture<String> r = new CompletableFuture<>();
            single.execute(() -> r.complete(state()));
            return r.get();
        });
        kinds.put(
                "ThreadPoolExecutor.invokeAll",
                () -> single.invokeAll(List.of(PROBE)).get(0).get());
        kinds.put("ThreadPoolExecutor.invokeAny", () -> single.invokeAny(List.of(PROBE)));
        kinds.put("execute(FutureTask)", () -> {
            FutureTask<String> t = new FutureTask<>(PROBE);
            single.execute(t);
            return t.get();
        });
        kinds.put("execute(other RunnableFuture)", () -> {
            OwnFuture f = new OwnFuture();
            single.execute(f);
            return f.get();
        });
        kinds.put("ScheduledThreadPoolExecutor.execute(other RunnableFuture)", () -> {
            OwnFuture f = new OwnFuture();
            scheduled.execute(f);
            return f.get();
        });
        kinds.put("ForkJoinPool.execute(other RunnableFuture)", () -> {
            OwnFuture f = new OwnFuture();
            fj.execute(f);
            return f.get();
        });
        kinds.put(
                "ScheduledThreadPoolExecutor.schedule",
                () -> scheduled.schedule(PROBE, 1, TimeUnit.MILLISECONDS).get());
        kinds.put("scheduleAtFixedRate", () -> {
            CompletableFuture<String> r = new CompletableFuture<>();
            ScheduledFuture<?> f =
                    scheduled.scheduleAtFixedRate(() -> r.complete(state()), 0, 5, TimeUnit.MILLISECONDS);
            String seen = r.get();
            f.cancel(false);
            return seen;
        });
        kinds.put("ForkJoinPool.submit", () -> fj.submit(PROBE).get());
        kinds.put("ForkJoinPool.execute", () -> {
            CompletableFuture<String> r = new CompletableFuture<>();
            fj.execute(() -> r.complete(state()));
            return r.get();
        });
        kinds.put(
                "ForkJoinPool.invokeAll",
                () -> fj.invokeAll(List.of(PROBE)).get(0).get());
        kinds.put(
                "ForkJoinTask.fork",
                () -> fj.invoke(new RecursiveTask<String>() {
                    @Override
                    protected String compute() {
                        RecursiveTask<String> child = new RecursiveTask<>() {
                            @Override
                            protected String compute() {
                                return state();
                            }
                        };
                        child.fork();
                        return child.join();
                    }
                }));
        kinds.put("common pool", () -> common.submit(PROBE).get());
        kinds.put("parallel stream", () -> distinct(IntStream.range(0, 2000).parallel()));
        kinds.put(
                "supplyAsync",
                () -> CompletableFuture.supplyAsync(MatrixMain::state).get());
        kinds.put(
                "thenApplyAsync",
                () -> CompletableFuture.completedFuture(1)
                        .thenApplyAsync(x -> state())
                        .get());
        kinds.put(
                "supplyAsync(two interfaces)",
                () -> CompletableFuture.supplyAsync(new Both()).get());
        kinds.put("runAsync(two interfaces)", () -> {
            Twice t = new Twice();
            CompletableFuture.runAsync(t).get();
            return t.ran.get();
        });
        kinds.put(
                "thenApplyAsync(two interfaces)",
                () -> CompletableFuture.completedFuture(1)
                        .thenApplyAsync(new Twice())
                        .get());
        kinds.put("thenApplyAsync(pool), completed by another thread", () -> {
            CompletableFuture<Integer> later = new CompletableFuture<>();
            CompletableFuture<String> stage = later.thenApplyAsync(x -> state(), single);
            onHelper(() -> later.complete(1));
            return stage.get();
        });
        kinds.put("thenApply, completed by another thread", () -> {
            CompletableFuture<Integer> later = new CompletableFuture<>();
            CompletableFuture<String> stage = later.thenApply(x -> state());
            onHelper(() -> later.complete(1));
            return stage.get();
        });
        kinds.put("java.util.Timer", () -> {
            CompletableFuture<String> r = new CompletableFuture<>();
            timer.schedule(
                    new TimerTask() {
                        @Override
                        public void run() {
                            r.complete(state());
                        }
                    },
                    1);
            return r.get();
        });
        kinds.put(
                "ForkJoinPool.awaitQuiescence (helper bound)",
                () -> helped(fj, probe -> fj.awaitQuiescence(5, TimeUnit.SECONDS)));
        kinds.put(
                "commonPool().awaitTermination (helper bound)",
                () -> helped(common, probe -> common.awaitTermination(5, TimeUnit.SECONDS)));
        kinds.put("ForkJoinTask.helpQuiesce (in a task bound to 99)", () -> helpQuiesce(fj));
        kinds.put(
                "join of another thread's common-pool task (joiner bound)",
                () -> helped(common, probe -> probe.join()));
        if (virtual) {
            ExecutorService perVirtual = (ExecutorService)
                    Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            ExecutorService perPlatform = (ExecutorService) Executors.class
                    .getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
                    .invoke(null, (ThreadFactory) Thread::new);
            kinds.put(
                    "newVirtualThreadPerTaskExecutor.submit",
                    () -> perVirtual.submit(PROBE).get());
            kinds.put("newVirtualThreadPerTaskExecutor.invokeAny", () -> perVirtual.invokeAny(List.of(PROBE)));
            kinds.put("newThreadPerTaskExecutor.invokeAny", () -> perPlatform.invokeAny(List.of(PROBE)));
            kinds.put("Thread.startVirtualThread", () -> {
                String[] seen = new String[1];
                Thread vt = (Thread) Thread.class
                        .getMethod("startVirtualThread", Runnable.class)
                        .invoke(null, (Runnable) () -> seen[0] = state());
                vt.join();
                return seen[0];
            });
        }

        for (Map.Entry<String, Callable<String>> k : kinds.entrySet()) {
            for (String state : STATES) {
                dirty(single, scheduled, fj, common);
                String seen;
                try {
                    seen = in(state, k.getValue());
                } catch (Exception e) {
                    seen = "error:" + e.getClass().getSimpleName();
                }
                System.out.println("cell " + k.getKey().replace(' ', '_') + " " + state + " " + seen);
            }
        }
        System.out.println("main-after " + state());
        System.exit(0);
    }

    /** Leaves token 77 open on every pooled worker, with nothing bound at hand-over. */
    private static void dirty(
            ExecutorService single, ScheduledExecutorService scheduled, ForkJoinPool fj, ForkJoinPool common)
            throws Exception {
        single.submit(LEAVE_SCOPE_OPEN).get();
        scheduled.submit(LEAVE_SCOPE_OPEN).get();
        fj.submit(LEAVE_SCOPE_OPEN).get();
        common.submit(LEAVE_SCOPE_OPEN).get();
    }

    interface Help {
        void help(ForkJoinTask<String> probe) throws Exception;
    }

    /**
     * Blocks {@code pool}'s single worker, queues the probe from the submitter (this thread, in its state), then
     * lets a thread bound to 99 help the pool through {@code help}; the worker is released when the helper is done,
     * or after two seconds if it waits instead of helping.
     */
    private static String helped(ForkJoinPool pool, Help help) throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (FencingScope ignored = Fencing.bind(HELPER)) {
            pool.execute(() -> {
                blocked.countDown();
                await(release);
            });
        }
        blocked.await();
        ForkJoinTask<String> probe = pool.submit(RAN_BY);
        Thread helper = new Thread(
                () -> {
                    try (FencingScope ignored = Fencing.bind(HELPER)) {
                        help.help(probe);
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                },
                "helper");
        helper.start();
        try {
            helper.join(2000);
        } finally {
            release.countDown();
        }
        helper.join();
        return probe.get();
    }

    /** Inside a task bound to 99 on {@code pool}'s only worker, helpQuiesce runs the submitter's queued probe. */
    private static String helpQuiesce(ForkJoinPool pool) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch queued = new CountDownLatch(1);
        ForkJoinTask<?> helper;
        try (FencingScope ignored = Fencing.bind(HELPER)) {
            helper = pool.submit(() -> {
                started.countDown();
                await(queued);
                ForkJoinTask.helpQuiesce();
            });
        }
        started.await();
        ForkJoinTask<String> probe = pool.submit(RAN_BY);
        queued.countDown();
        helper.get();
        return probe.get();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
