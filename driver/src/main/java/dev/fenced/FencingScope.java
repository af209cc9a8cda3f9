package dev.fenced;

import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.TokenCells;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A binding of a token to one thread, opened by {@link Fencing#bind(long)} or
 * {@link Fencing#bind(String, long)}. Closing it restores the
 * binding that was current when it was opened, and revokes the token for everything that captured it
 * under this scope (tasks handed over, periodic tasks, pre-built futures, unstarted threads): their
 * protected writes are refused from then on, as after a lost lease. It must be closed on the thread that
 * opened it, innermost first.
 */
public final class FencingScope implements AutoCloseable {

    private final AtomicLong cell;
    private final @Nullable AtomicLong previous;
    private final Thread owner;
    private boolean closed;

    private FencingScope(AtomicLong cell, @Nullable AtomicLong previous, Thread owner) {
        this.cell = cell;
        this.previous = previous;
        this.owner = owner;
    }

    static FencingScope open(AtomicLong cell) {
        AtomicLong previous = ContextAccess.swap(cell);
        return new FencingScope(cell, previous, Thread.currentThread());
    }

    /** The token this scope binds (0 for an unfenced section). */
    public long token() {
        return Math.abs(cell.get());
    }

    /** The domain of the token this scope binds ({@link Fencing#bind(String, long)}); null for an unfenced section. */
    public @Nullable String tokenDomain() {
        return cell.get() == 0 ? null : TokenCells.domainOf(cell);
    }

    /**
     * Restores the binding from before this scope and revokes its token.
     *
     * @throws IllegalStateException on another thread than the one that opened it (nothing changes), or when a
     *         scope opened inside this one is still open: this scope's token is revoked all the same, and the inner
     *         scope's close then restores the binding from before this one
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException(
                    "a FencingScope must be closed by the thread that opened it (" + owner.getName() + ")");
        }
        closed = true;
        TokenCells.poison(cell);
        if (ContextAccess.current() != cell) {
            ContextAccess.closedOutOfOrder(cell, previous);
            throw new IllegalStateException("fenced: the scope of token " + token() + " was closed while a scope or"
                    + " lease opened inside it is still bound: close them innermost first. Its token is revoked now;"
                    + " closing the inner one restores the binding from before this scope");
        }
        ContextAccess.restore(previous);
    }
}
