package dev.fenced.spring.it.app;

import dev.fenced.Fencing;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Component;

/** Reports, from Spring's task executor, the token the task runs with (-1: none) and the thread it ran on. */
@Component
public class AsyncProbe {

    @Async
    public CompletableFuture<String> tokenSeen() {
        return CompletableFuture.completedFuture(Fencing.currentToken().orElse(-1) + "@" + Thread.currentThread().getName());
    }

    /** Runs {@code work} on Spring's task executor once {@code go} opens; returns what it returned. */
    @Async
    public CompletableFuture<String> runWhen(CountDownLatch go, Supplier<String> work) throws InterruptedException {
        go.await();
        return CompletableFuture.completedFuture(work.get());
    }
}
