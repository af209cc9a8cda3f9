package dev.fenced.it.agent;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Child main: binds token 42 and prints, per hand-over mechanism, the token the task saw
 * ({@code seen <mechanism> <n|none>}); then, unbound, the same mechanisms again ({@code after ...}), which
 * must all say none: pooled threads keep nothing.
 */
public final class PropagationMain {

    private PropagationMain() {}

    static String token() {
        OptionalLong t = Fencing.currentToken();
        return t.isPresent() ? Long.toString(t.getAsLong()) : "none";
    }

    public static void main(String[] args) throws Exception {
        ExecutorService fixed = Executors.newFixedThreadPool(2);
        ScheduledExecutorService scheduled = Executors.newScheduledThreadPool(1);
        ForkJoinPool fj = new ForkJoinPool(2);
        try (FencingScope ignored = Fencing.bind(42)) {
            all("seen", fixed, scheduled, fj);
        }
        all("after", fixed, scheduled, fj);
        System.out.println("common-pool-parallelism " + ForkJoinPool.getCommonPoolParallelism());
        System.exit(0);
    }

    private static void all(String label, ExecutorService fixed, ScheduledExecutorService scheduled, ForkJoinPool fj)
            throws Exception {
        Callable<String> probe = PropagationMain::token;
        print(label, "tpe-submit", fixed.submit(probe).get());
        CompletableFuture<String> viaExecute = new CompletableFuture<>();
        fixed.execute(() -> viaExecute.complete(token()));
        print(label, "tpe-execute", viaExecute.get());
        print(label, "tpe-invokeAll", fixed.invokeAll(List.of(probe)).get(0).get());
        print(
                label,
                "stpe-schedule",
                scheduled.schedule(probe, 1, TimeUnit.MILLISECONDS).get());
        CompletableFuture<String> periodic = new CompletableFuture<>();
        var f = scheduled.scheduleAtFixedRate(() -> periodic.complete(token()), 0, 10, TimeUnit.MILLISECONDS);
        print(label, "stpe-fixedRate", periodic.get());
        f.cancel(false);
        print(label, "fjp-submit", fj.submit(probe).get());
        print(label, "fjp-invoke-fork", fj.invoke(new RecursiveTask<String>() {
            @Override
            protected String compute() {
                RecursiveTask<String> child = new RecursiveTask<>() {
                    @Override
                    protected String compute() {
                        return token();
                    }
                };
                child.fork();
                return child.join();
            }
        }));
        print(label, "common-pool", ForkJoinPool.commonPool().submit(probe).get());
        print(
                label,
                "parallel-stream",
                IntStream.range(0, 2000)
                        .parallel()
                        .mapToObj(i -> token())
                        .distinct()
                        .sorted()
                        .collect(Collectors.joining(",")));
        print(
                label,
                "cf-supplyAsync",
                CompletableFuture.supplyAsync(PropagationMain::token).get());
        print(
                label,
                "cf-thenApplyAsync",
                CompletableFuture.completedFuture(1)
                        .thenApplyAsync(x -> token())
                        .get());
        CompletableFuture<Integer> later = new CompletableFuture<>();
        CompletableFuture<String> stage = later.thenApplyAsync(x -> token(), fixed);
        print(label, "cf-stage-on-pool", complete(later, stage));
        print(
                label,
                "cf-thenCombineAsync",
                CompletableFuture.completedFuture(1)
                        .thenCombineAsync(CompletableFuture.completedFuture(2), (a, b) -> token())
                        .get());
        if (Runtime.version().feature() >= 21) {
            ExecutorService perTask = (ExecutorService)
                    Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            print(label, "virtual-executor", perTask.submit(probe).get());
            perTask.shutdown();
            String[] seen = new String[1];
            Thread vt = (Thread)
                    Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null, (Runnable)
                            () -> seen[0] = token());
            vt.join();
            print(label, "virtual-thread", seen[0]);
        }
    }

    /** Completes {@code later} from a thread that has no token, so the stage runs by the stage's own capture. */
    private static String complete(CompletableFuture<Integer> later, CompletableFuture<String> stage) throws Exception {
        Thread t = new Thread(() -> later.complete(1));
        t.start();
        t.join();
        return stage.get();
    }

    private static void print(String label, String mechanism, String token) {
        System.out.println(label + " " + mechanism + " " + token);
    }
}
