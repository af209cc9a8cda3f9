package dev.fenced.spring.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The token through Reactor, by the starter's ThreadLocalAccessor (registered by ServiceLoader, found by
 * Micrometer's ContextRegistry): a pipeline that hops to {@code boundedElastic()} or {@code parallel()} sees the
 * token bound where it was subscribed, with automatic propagation ({@code Hooks.enableAutomaticContextPropagation()},
 * what {@code spring.reactor.context-propagation=auto} turns on) or with {@code contextCapture()} and
 * {@code handle}; Reactor's workers keep nothing afterwards, and a closed scope's token is revoked in work still
 * running with it.
 */
@Tag("jvm-sensitive")
class ReactorPropagationTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @AfterEach
    void automaticOff() {
        Hooks.disableAutomaticContextPropagation();
    }

    @Test
    void automaticPropagationCarriesTheTokenAcrossSchedulers() {
        Hooks.enableAutomaticContextPropagation();
        String caller = Thread.currentThread().getName();
        try (FencingScope scope = Fencing.bind(91)) {
            String seen = Mono.fromCallable(ReactorPropagationTest::tokenAndThread)
                    .subscribeOn(Schedulers.boundedElastic())
                    .block(WAIT);
            assertTrue(seen.startsWith("91@"), seen);
            assertNotEquals(caller, seen.substring(3), "it ran on a Reactor worker");

            List<String> parallel = Flux.range(1, 8)
                    .publishOn(Schedulers.parallel())
                    .map(i -> tokenAndThread())
                    .collectList()
                    .block(WAIT);
            assertEquals(8, parallel.size());
            parallel.forEach(s -> assertTrue(s.startsWith("91@"), "on parallel(): " + parallel));
        }
        assertWorkersKeepNoToken();
    }

    @Test
    void contextCaptureAndHandleCarryTheTokenWithoutTheHook() {
        try (FencingScope scope = Fencing.bind(92)) {
            List<Long> seen = Flux.range(1, 4)
                    .publishOn(Schedulers.boundedElastic())
                    .<Long>handle((i, sink) -> sink.next(Fencing.currentToken().orElse(-1)))
                    .contextCapture()
                    .collectList()
                    .block(WAIT);
            assertEquals(List.of(92L, 92L, 92L, 92L), seen);
        }
        assertWorkersKeepNoToken();
    }

    @Test
    void aClosedScopesTokenIsRevokedInWorkStillRunningWithIt() throws Exception {
        Hooks.enableAutomaticContextPropagation();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch scopeClosed = new CountDownLatch(1);
        CompletableFuture<Long> late;
        try (FencingScope scope = Fencing.bind(93)) {
            late = Mono.fromCallable(() -> {
                        long before = Fencing.currentToken().orElse(-1);
                        started.countDown();
                        assertTrue(scopeClosed.await(20, TimeUnit.SECONDS));
                        assertEquals(93, before, "bound when the work started");
                        return Fencing.currentToken().orElse(-1);
                    })
                    .subscribeOn(Schedulers.boundedElastic())
                    .contextCapture()
                    .toFuture();
            assertTrue(started.await(20, TimeUnit.SECONDS));
        }
        scopeClosed.countDown();
        assertEquals(-1L, late.get(20, TimeUnit.SECONDS), "the scope closed: its token is not lent on");
        assertWorkersKeepNoToken();
    }

    /** Unrelated work on the same schedulers, subscribed with nothing bound, sees no token. */
    private static void assertWorkersKeepNoToken() {
        List<Long> after = Flux.range(1, 16)
                .parallel(4)
                .runOn(Schedulers.boundedElastic())
                .map(i -> Fencing.currentToken().orElse(-1))
                .sequential()
                .concatWith(Flux.range(1, 8).publishOn(Schedulers.parallel()).map(i -> Fencing.currentToken().orElse(-1)))
                .collectList()
                .block(WAIT);
        after.forEach(t -> assertEquals(-1L, t, "a Reactor worker kept a token after its work: " + after));
    }

    private static String tokenAndThread() {
        return Fencing.currentToken().orElse(-1) + "@" + Thread.currentThread().getName();
    }
}
