package dev.fenced;

import dev.fenced.context.ContextAccess;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A binding of a token to one thread, opened by {@link Fencing#bind(long)}. Closing it restores the
 * binding that was current when it was opened. It must be closed on the thread that opened it.
 */
public final class FencingScope implements AutoCloseable {

    private final AtomicLong cell;
    private final AtomicLong previous;
    private final Thread owner;
    private boolean closed;

    private FencingScope(AtomicLong cell, AtomicLong previous, Thread owner) {
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
        ContextAccess.swap(previous);
    }
}
