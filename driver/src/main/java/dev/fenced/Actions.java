package dev.fenced;

import dev.fenced.internal.action.ActionStore;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.TokenCells;
import dev.fenced.internal.lease.DeadlineCell;
import dev.fenced.internal.lease.LeaseRegistry;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.internal.log.Logs;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Actions on targets that cannot check a token (an SMS provider, a payment API, an e-mail): the seed's "insert
 * a unique row for each action before you do it". {@code Actions.once(dataSource, "sms:order-77", () ->
 * sms.send(...))} runs the action at most once across every holder, and never for a stale one.
 *
 * <p>Before the action runs, one statement in the database checks that the calling thread's token is the
 * current token of a live lease in the lease table ({@code fenced_lease}; by the database clock, with the lease
 * row locked so a takeover cannot slip in between) and inserts the row {@code key} into the action table
 * ({@code fenced_actions}, created on first use). Then:
 * <ul>
 * <li>the row is new: the action runs, and the row is marked done; {@code once} returns true (or the
 *     callable's value);</li>
 * <li>the row was there: the action was claimed before, by this holder or another; it is skipped and
 *     {@code once} returns false (or empty);</li>
 * <li>the token is not the lease's current one (the lease expired or was taken over, or the token was not
 *     granted by this lease table), or the lease is known here to be lost: nothing is recorded, the action does not
 *     run, and {@link LeaseLostException} is thrown: the holder is stale and must stop.</li>
 * </ul>
 *
 * <p><b>At most once, not exactly once.</b> The row is recorded before the action runs. If the holder dies or
 * freezes after recording it and before the action completes, nobody runs the action again: the row stays with
 * no {@code done_at}, for a person or a sweeper to look at. If the action throws, the row stays too, with the
 * failure in {@code failed}, and the exception is passed on; {@link #forget} deletes a row deliberately. With
 * {@link Builder#releaseOnFailure()} a failed action's row is deleted instead, so the next holder tries again:
 * use it only when an exception means the action did not happen (an error before anything was sent), since an
 * action that did its effect and then threw (a timeout after the SMS went out) will then run twice. If the
 * lease is found lost after the row is recorded and before the action starts, the row is given back (deleted)
 * and {@link LeaseLostException} thrown: a newer holder runs the action instead.
 *
 * <p>Keys are one name space across every lease: any live lease may claim any key (at most once per key,
 * whichever jobs share it); scoping keys to a lease name would run a shared action once per lease. Each step
 * runs in autocommit on a connection of its own; a data source that hands out the caller's open transaction
 * (Spring's {@code TransactionAwareDataSourceProxy} in {@code @Transactional}) is refused with SQLState
 * {@code 25001}, never committed early.
 *
 * <p>A bare {@link Fencing#bind} token is accepted when it is the current token of a live lease in the lease
 * table; any other token is stale by this definition. The table's layout: {@code key text PRIMARY KEY, token
 * bigint, lease text, claimed_at timestamptz, done_at timestamptz, failed text}.
 */
public final class Actions {

    /** The action table unless configured otherwise. */
    public static final String DEFAULT_TABLE = "fenced_actions";

    private static final System.Logger LOG = Logs.get("dev.fenced.actions");

    private final ActionStore store;
    private final boolean releaseOnFailure;

    private Actions(ActionStore store, boolean releaseOnFailure) {
        this.store = store;
        this.releaseOnFailure = releaseOnFailure;
    }

    /** Runs {@code action} once for {@code key}, under the calling thread's token; true if it ran now. */
    public static boolean once(DataSource dataSource, String actionKey, Runnable action) throws SQLException {
        return builder(dataSource).build().once(actionKey, action);
    }

    /**
     * Runs {@code action} once for {@code key}, under the calling thread's token: its value when it ran now,
     * empty when it was claimed before. An exception from the action is passed on as it is.
     */
    public static <T> Optional<T> once(DataSource dataSource, String actionKey, Callable<T> action) throws Exception {
        return builder(dataSource).build().once(actionKey, action);
    }

    /** Deletes the row of {@code actionKey} in the default table: its action may run again. True if there was one. */
    public static boolean forget(DataSource dataSource, String actionKey) throws SQLException {
        return builder(dataSource).build().forget(actionKey);
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Options: the action table, the lease table, what a failed action leaves behind. */
    public static final class Builder {
        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private String leaseTable = Objects.requireNonNull(FencedProperty.LEASE_TABLE.defaultValue());
        private boolean releaseOnFailure;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The action table, {@code [schema.]table} (default {@code fenced_actions}). */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** The lease table whose current tokens are checked (default {@code fenced_lease}, as LeaseManager's). */
        public Builder leaseTable(String leaseTable) {
            this.leaseTable = leaseTable;
            return this;
        }

        /** A failed action's row is deleted, so the next holder tries again (see the class comment). */
        public Builder releaseOnFailure() {
            this.releaseOnFailure = true;
            return this;
        }

        /** @throws IllegalArgumentException for a table name that is not {@code [schema.]table} */
        public Actions build() {
            return new Actions(
                    new ActionStore(dataSource, LeaseTableName.parse(table), LeaseTableName.parse(leaseTable)),
                    releaseOnFailure);
        }
    }

    public boolean once(String actionKey, Runnable action) throws SQLException {
        Objects.requireNonNull(action, "action");
        try {
            return once(actionKey, () -> {
                        action.run();
                        return Boolean.TRUE;
                    })
                    .isPresent();
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // a Runnable throws nothing checked
        }
    }

    public <T> Optional<T> once(String actionKey, Callable<T> action) throws Exception {
        Objects.requireNonNull(action, "action");
        if (actionKey == null || actionKey.isBlank()) {
            throw new IllegalArgumentException("Actions.once needs a non-empty action key, such as \"sms:order-77\"");
        }
        long token = liveToken(actionKey);
        String lease = leaseName(token);
        ActionStore.Claim claim = store.claim(actionKey, token, lease);
        if (claim == ActionStore.Claim.STALE) {
            throw stale(
                    actionKey,
                    token,
                    lease,
                    "it is not the current token of a live lease in the lease table" + " (expired or taken over)");
        }
        if (claim == ActionStore.Claim.ALREADY_CLAIMED) {
            LOG.log(System.Logger.Level.DEBUG, "fenced: action {0} was claimed before; skipped", actionKey);
            return Optional.empty();
        }
        // claimed while the lease held; a lease lost since (a pause after the claim) gives the row back
        if (!stillLive(token)) {
            store.release(actionKey, token);
            throw stale(
                    actionKey,
                    token,
                    lease,
                    "its lease was lost after the action was recorded; the row was given" + " back for a newer holder");
        }
        T result;
        try {
            result = action.call();
        } catch (Exception | Error e) {
            recordFailure(actionKey, token, e);
            throw e;
        }
        try {
            store.done(actionKey, token);
        } catch (SQLException e) {
            // the action ran and its row stays claimed: nobody runs it again; only done_at is missing
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: action " + actionKey + " ran but could not be marked done: " + e);
        }
        return Optional.ofNullable(result);
    }

    public boolean forget(String actionKey) throws SQLException {
        return store.forget(actionKey);
    }

    private void recordFailure(String key, long token, Throwable failure) {
        try {
            if (releaseOnFailure) {
                store.release(key, token);
            } else {
                store.failed(key, token, String.valueOf(failure));
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: action " + key + " failed (" + failure + ") and its row could" + " not be "
                            + (releaseOnFailure ? "given back" : "marked failed") + ": " + e);
        }
    }

    /** The calling thread's token, checked against its lease's deadline on the monotonic clock. */
    private static long liveToken(String key) throws SQLException {
        AtomicLong cell = ContextAccess.current();
        long v = cell == null ? 0 : DeadlineCell.valueForWrite(cell);
        if (v > 0) {
            String domain = TokenCells.domainOf(Objects.requireNonNull(cell)); // v > 0: a cell is bound
            if (!Fencing.FENCED_DOMAIN.equals(domain)) {
                // the check is against the lease table's current tokens: a number of another source means nothing there
                throw new FencingException(
                        "fenced: action " + key + " not run: it is checked against the current tokens"
                                + " of fenced's lease table, but the bound token is of domain '" + domain
                                + "'; run it under a"
                                + " Lease (LeaseManager.acquire)",
                        TokenDomainException.SQLSTATE);
            }
            return v;
        }
        if (v < 0) {
            throw stale(key, -v, leaseName(-v), "its lease was lost");
        }
        throw new FencingException(
                "fenced: action " + key + " needs a token: run it under a Lease"
                        + " (LeaseManager.acquire) or Fencing.bind(token)",
                UnfencedWriteException.SQLSTATE);
    }

    private static boolean stillLive(long token) {
        AtomicLong cell = ContextAccess.current();
        return cell != null && DeadlineCell.valueForWrite(cell) == token;
    }

    private static @Nullable String leaseName(long token) {
        String name = LeaseRegistry.nameOf(token);
        return name == null || name.contains(" or ") ? null : name;
    }

    private static LeaseLostException stale(String key, long token, @Nullable String lease, String why) {
        return new LeaseLostException(lease, token, "action " + key + " not run: " + why);
    }
}
