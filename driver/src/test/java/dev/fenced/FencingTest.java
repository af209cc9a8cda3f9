package dev.fenced;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.TokenCells;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("jvm-sensitive")
class FencingTest {

    @Test
    void scopesNestAndRestoreTheOuterToken() {
        assertEquals(OptionalLong.empty(), Fencing.currentToken());
        try (FencingScope outer = Fencing.bind(5)) {
            assertEquals(OptionalLong.of(5), Fencing.currentToken());
            try (FencingScope inner = Fencing.bind(9)) {
                assertEquals(OptionalLong.of(9), Fencing.currentToken());
            }
            assertEquals(OptionalLong.of(5), Fencing.currentToken());
        }
        assertEquals(OptionalLong.empty(), Fencing.currentToken());
    }

    @Test
    void tokensMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> Fencing.bind(0));
        assertThrows(IllegalArgumentException.class, () -> Fencing.bind(-3));
    }

    @Test
    void aBindingBelongsToItsThreadOnly() throws Exception {
        try (FencingScope ignored = Fencing.bind(7)) {
            OptionalLong elsewhere = CompletableFuture.supplyAsync(Fencing::currentToken, r -> new Thread(r).start())
                    .get();
            assertEquals(OptionalLong.empty(), elsewhere);
        }
    }

    @Test
    void unfencedSectionsHaveNoTokenAndRestoreTheBinding() throws Exception {
        try (FencingScope ignored = Fencing.bind(7)) {
            OptionalLong inside = Fencing.unfenced(Fencing::currentToken);
            assertEquals(OptionalLong.empty(), inside);
            assertEquals(OptionalLong.of(7), Fencing.currentToken());
        }
    }

    @Test
    void aPoisonedCellReportsNoToken() {
        try (FencingScope ignored = Fencing.bind(11)) {
            TokenCells.poison(ContextAccess.current());
            assertEquals(OptionalLong.empty(), Fencing.currentToken());
            assertTrue(TokenCells.isLost(ContextAccess.current().get()));
            assertEquals(11, TokenCells.tokenOf(ContextAccess.current().get()));
        }
    }

    @Test
    void aScopeMustBeClosedOnItsOwnThread() throws Exception {
        FencingScope scope = Fencing.bind(3);
        try {
            Throwable t = CompletableFuture.runAsync(scope::close, r -> new Thread(r).start())
                    .handle((v, e) -> e)
                    .get();
            assertTrue(t.getCause() instanceof IllegalStateException, String.valueOf(t));
        } finally {
            scope.close();
        }
        assertEquals(OptionalLong.empty(), Fencing.currentToken());
    }

    /** Issue 17: closing bind(11) before the inner bind(12) left 11 bound after both were closed. */
    @Test
    void aScopeClosedOutOfOrderIsRefusedLoudlyAndTheBindingStillUnwindsToWhatWasBefore() {
        FencingScope outer = Fencing.bind(11);
        FencingScope inner = Fencing.bind(12);
        IllegalStateException e = assertThrows(IllegalStateException.class, outer::close);
        assertTrue(e.getMessage().contains("innermost first"), e.getMessage());
        assertEquals(OptionalLong.of(12), Fencing.currentToken(), "the inner scope is still the binding");
        inner.close();
        assertEquals(null, ContextAccess.current(), "both closed: nothing bound, not the outer token");
        outer.close(); // already closed: nothing more happens
        assertEquals(null, ContextAccess.current());
    }

    /** Issue 17: what was captured under a scope kept its live token after the scope closed. */
    @Test
    void closingAScopeRevokesItsTokenForEverythingThatCapturedIt() {
        java.util.concurrent.atomic.AtomicLong captured;
        try (FencingScope ignored = Fencing.bind(21)) {
            captured = ContextAccess.current();
        }
        assertTrue(TokenCells.isLost(captured.get()), "the captured cell is poisoned");
        assertEquals(21, TokenCells.tokenOf(captured.get()));
    }
}
