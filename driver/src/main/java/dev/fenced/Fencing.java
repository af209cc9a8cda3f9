package dev.fenced;

import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.TokenCells;
import dev.fenced.internal.context.TokenDomains;
import dev.fenced.internal.lease.LeaseRegistry;
import dev.fenced.internal.log.Logs;
import java.lang.System.Logger.Level;
import java.util.Optional;
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
 *
 * <p><b>Token domains.</b> Every token belongs to the domain of the counter it came from: fenced's own leases are
 * {@value #FENCED_DOMAIN}; a token from another lock service is bound with its own, {@code bind("etcd", revision)}.
 * Each protected table has one domain ({@code fenced.tokenDomain}, {@code fenced.table.<table>.tokenDomain}), and
 * a write whose token is of another domain is refused: two counters' numbers must never meet on a row.
 */
public final class Fencing {

    private static final System.Logger LOG = Logs.get("dev.fenced.Fencing");

    /** The domain of fenced's own leases, and of {@link #bind(long)}; the default of every table. */
    public static final String FENCED_DOMAIN = TokenDomains.FENCED;

    private Fencing() {}

    /**
     * Binds {@code token} to the calling thread until the returned scope is closed. Scopes nest; closing
     * one restores whatever was bound before it and revokes the token for the tasks handed over under it.
     * A token of a lease that ended in this JVM (closed or lost) binds as lost: writes under it are refused
     * with {@link LeaseLostException}, as the lease's own would be.
     *
     * <p>The token is of fenced's own domain, {@value #FENCED_DOMAIN}: {@code bind(token)} is
     * {@code bind(FENCED_DOMAIN, token)}. It writes only tables of that domain (the default); bind a token from
     * another lock service with {@link #bind(String, long)}.
     *
     * @throws IllegalArgumentException if {@code token} is not positive
     */
    public static FencingScope bind(long token) {
        return bind(FENCED_DOMAIN, token);
    }

    /**
     * Binds {@code token} of {@code domain} to the calling thread until the returned scope is closed, as
     * {@link #bind(long)} does. Protected writes under it reach only tables whose token domain is {@code domain};
     * a write to a table of another domain is refused with {@link TokenDomainException} before it is sent.
     *
     * <pre>{@code
     * try (FencingScope scope = Fencing.bind("etcd", lockKey.getModRevision())) {
     *     jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", 42000, 77);
     * }
     * }</pre>
     *
     * @param domain the token's source, as configured for the tables it writes: 1 to 63 lower-case letters, digits,
     *               {@code . _ : -} ({@code etcd}, {@code zookeeper}, {@code redisson}, {@code etcd:cluster-eu})
     * @throws IllegalArgumentException if {@code token} is not positive or {@code domain} is not a domain name
     */
    public static FencingScope bind(String domain, long token) {
        TokenDomains.check(domain);
        // only fenced's own leases end in this JVM: a number of another domain says nothing about them
        boolean ended = FENCED_DOMAIN.equals(domain) && LeaseRegistry.endedHere(domain, token);
        return FencingScope.open(ended ? TokenCells.lost(domain, token) : TokenCells.live(domain, token));
    }

    /** The domain of the token the calling thread writes with; empty when {@link #currentToken()} is. */
    public static Optional<String> currentTokenDomain() {
        AtomicLong cell = ContextAccess.current();
        return cell == null || cell.get() <= 0 ? Optional.empty() : Optional.of(TokenCells.domainOf(cell));
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
    @SuppressWarnings("try") // the scope is held for the block, never named in it
    public static <T> T unfenced(Callable<T> work) throws Exception {
        StackWalker.StackFrame caller = StackWalker.getInstance()
                .walk(frames -> frames.skip(1).findFirst().orElse(null));
        LOG.log(
                Level.INFO,
                "fenced: unfenced section entered by {0}",
                caller == null ? "unknown" : caller.getClassName() + "." + caller.getMethodName());
        try (FencingScope ignored = FencingScope.open(new AtomicLong(TokenCells.UNFENCED))) {
            return work.call();
        }
    }
}
