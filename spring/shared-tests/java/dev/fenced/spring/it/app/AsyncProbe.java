package dev.fenced.spring.it.app;

import dev.fenced.Fencing;
import java.util.concurrent.CompletableFuture;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Component;

/** Reports, from Spring's task executor, the token the task runs with (-1: none) and the thread it ran on. */
@Component
public class AsyncProbe {

    @Async
    public CompletableFuture<String> tokenSeen() {
        return CompletableFuture.completedFuture(Fencing.currentToken().orElse(-1) + "@" + Thread.currentThread().getName());
    }
}
