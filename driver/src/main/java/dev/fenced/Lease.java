package dev.fenced;

import java.sql.SQLException;
import java.time.Duration;
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

    /**
     * Makes the lease last {@code ttl} from now, by the database clock, in one statement: for leases of a
     * manager built {@link LeaseManager.Builder#withoutRenewal() withoutRenewal()}, whose holder decides how
     * long they last (ShedLock's {@code SimpleLock.extend} and its keep-alive). A shorter ttl than before shortens
     * the lease. The lease's own deadline moves with it.
     *
     * @return true if extended; false if the lease is no longer held (closed, lost, expired by the database
     *         clock or taken over), in which case it is lost now if it was not before
     * @throws IllegalStateException if the lease's manager renews its leases in the background
     * @throws SQLException if the store did not answer; the lease keeps its previous deadline
     */
    default boolean extend(Duration ttl) throws SQLException {
        throw new UnsupportedOperationException("fenced: " + getClass().getName() + " cannot be extended");
    }

    /**
     * Like {@link #close()}, except that the store keeps the lease taken until {@code atLeastHeldFor} has passed
     * since it was granted or last renewed or extended (database clock): nobody else acquires it before then
     * (ShedLock's {@code lockAtLeastFor}). Its token is poisoned at once all the same: the holder is done. A time
     * already passed releases it at once. Idempotent, never throws on store trouble (the lease then expires).
     */
    default void closeKeepingFor(Duration atLeastHeldFor) {
        throw new UnsupportedOperationException("fenced: " + getClass().getName() + " cannot be closed with a hold");
    }
}
