package dev.fenced;

import dev.fenced.context.ContextAccess;
import dev.fenced.context.TokenCells;
import dev.fenced.lease.LeaseRegistry;
import java.lang.System.Logger.Level;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The calling thread's fencing context: which token its writes to protected tables carry.
 *
 * <pre>{@code
 * try (FencingScope scope = Fencing.bind(33)) {
 *     jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", 42000, 77);
 * }
 * }</pre>
 *
 * A {@link Lease} binds its token for you while it is open; the agent carries the binding into tasks
 * handed to executors. Bindings never leak into other threads on their own.
 */
public final class Fencing {

    private static final System.Logger LOG = System.getLogger("dev.fenced.Fencing");

    private Fencing() {
    }

    /**
     * Binds {@code token} to the calling thread until the returned scope is closed. Scopes nest; closing
     * one restores whatever was bound before it and revokes the token for the tasks handed over under it.
     * A token of a lease that ended in this JVM (closed or lost) binds as lost: writes under it are refused
     * with {@link LeaseLostException}, as the lease's own would be.
     *
     * @throws IllegalArgumentException if {@code token} is not positive
     */
    public static FencingScope bind(long token) {
        return FencingScope.open(LeaseRegistry.endedHere(token) ? TokenCells.lost(token) : TokenCells.live(token));
    }

    /**
     * The token the calling thread writes with: empty when nothing is bound, inside {@link #unfenced},
     * or when the lease that bound it has been lost.
     */
    public static OptionalLong currentToken() {
        AtomicLong cell = ContextAccess.current();
        if (cell == null) {
            return OptionalLong.empty();
        }
        long v = cell.get();
        return v > 0 ? OptionalLong.of(v) : OptionalLong.empty();
    }

    /**
     * Runs {@code work} with fencing explicitly switched off for this thread: writes to protected tables
     * go through as written and keep the row's fence value. Meant for migrations and admin tools; each
     * use is logged. It is for the calling thread and this section only: tasks handed over to other threads
     * inside it (with the agent) carry no token, not the unfenced state.
     */
    public static <T> T unfenced(Callable<T> work) throws Exception {
        StackWalker.StackFrame caller = StackWalker.getInstance()
                .walk(frames -> frames.skip(1).findFirst().orElse(null));
        LOG.log(Level.INFO, "fenced: unfenced section entered by {0}",
                caller == null ? "unknown" : caller.getClassName() + "." + caller.getMethodName());
        try (FencingScope ignored = FencingScope.open(new AtomicLong(TokenCells.UNFENCED))) {
            return work.call();
        }
    }
}
