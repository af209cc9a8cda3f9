package dev.fenced;

import java.util.function.Consumer;

/**
 * A granted lease: while it is open, its {@link #token()} is bound to the thread that acquired it, so
 * every write that thread makes to a protected table carries it. Renewed in the background; when a
 * renewal fails or its deadline passes it is lost: its token is poisoned (further protected writes under
 * it fail on the client with {@link LeaseLostException}) and {@link #onLost} callbacks run.
 *
 * <p>{@link #close()} releases it (only if it is still ours) and restores the thread's previous binding.
 */
public interface Lease extends AutoCloseable {

    /** The lease's name. */
    String name();

    /** The fencing token granted with it; larger than every token granted before, for any lease. */
    long token();

    /** True while the lease is held: not lost, not closed, and its local deadline not passed. */
    boolean isValid();

    /**
     * Runs {@code callback} (on a fenced thread, never the holder's) when the lease is lost; at once if
     * it already is. Not called on a normal {@link #close()}.
     */
    void onLost(Consumer<? super Lease> callback);

    /**
     * Releases the lease and unbinds its token from the acquiring thread. Idempotent. The token is poisoned
     * before the row is released, so a task or thread that still carries it (closed from another thread, or
     * handed to an executor) is refused like the holder of a lost lease instead of writing under a lease
     * someone else may already hold.
     */
    @Override
    void close();
}
