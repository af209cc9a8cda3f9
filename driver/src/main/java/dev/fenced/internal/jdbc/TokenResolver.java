package dev.fenced.internal.jdbc;

import dev.fenced.FencingMode;
import dev.fenced.LeaseLostException;
import dev.fenced.TokenDomainException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.WriterKind;
import dev.fenced.internal.context.ContextAccess;
import dev.fenced.internal.context.TokenCells;
import dev.fenced.internal.lease.DeadlineCell;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.sql.RewritePlan;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Reads the calling thread's token at execute time and decides what a fenced statement carries: the
 * token, or NULL (an explicit unfenced section, or observe mode without a token; the row then keeps its
 * fence value). Refuses in enforce mode when no token is bound, its lease was lost, or it is of another token
 * domain than the tables the statement writes.
 */
final class TokenResolver {

    /** Returned for "bind NULL". */
    static final long NO_TOKEN = 0L;

    private TokenResolver() {}

    /**
     * The token to send; {@code sql} is the statement as the application wrote it, only read when observe mode
     * lets a write through without a token (for the writer inventory).
     */
    static long resolve(RewritePlan.Fenced plan, String sql, FencedRuntime runtime) throws SQLException {
        AtomicLong cell = ContextAccess.current();
        if (cell != null) {
            long v = valueForWrite(cell);
            if (v > 0) {
                return ofTablesDomain(v, cell, plan, sql, runtime);
            }
            if (v == 0) {
                return NO_TOKEN;
            }
            if (plan.mode() == FencingMode.ENFORCE) {
                runtime.tracker().increment(Counter.LOST_LEASE_WRITES_REFUSED);
                throw new LeaseLostException(runtime.leaseName(-v), -v);
            }
            runtime.observedUnfenced(plan, WriterKind.LEASE_LOST, "its lease was lost", sql);
            return NO_TOKEN;
        }
        if (plan.mode() == FencingMode.ENFORCE) {
            runtime.tracker().increment(Counter.UNFENCED_WRITES_REFUSED);
            throw new UnfencedWriteException(plan.table());
        }
        runtime.observedUnfenced(plan, WriterKind.NO_TOKEN, "no token is bound", sql);
        return NO_TOKEN;
    }

    /**
     * {@code token} when its cell's domain is the plan's and, for a lease token of a database's own counter, it was drawn
     * in the database written (two instanceofs and two string compares in memory); else refused in enforce mode and
     * sent as NULL, observed, in observe mode.
     */
    private static long ofTablesDomain(
            long token, AtomicLong cell, RewritePlan.Fenced plan, String sql, FencedRuntime runtime)
            throws SQLException {
        String tokenDomain = TokenCells.domainOf(cell);
        String tableDomain = plan.tokenDomain();
        if (!tableDomain.equals(tokenDomain)) {
            return refused(
                    new TokenDomainException(plan.table(), tableDomain, tokenDomain),
                    "its token is of domain '" + tokenDomain + "', the table's is '" + tableDomain + "'",
                    plan,
                    sql,
                    runtime);
        }
        // each database has its own counter of domain fenced: a lease table's token fences its own database only
        // it was drawn here, or one side cannot say where it was drawn (a store of the SPI, a server that does not)
        String origin = TokenCells.originOf(cell);
        String here = runtime.databaseOrigin();
        if (origin == null || here == null || here.equals(origin)) {
            return token;
        }
        return refused(
                TokenDomainException.drawnInAnotherDatabase(plan.table(), tableDomain, origin, here),
                "its token of domain '" + tokenDomain + "' was drawn by the lease table of another database (" + origin
                        + ")",
                plan,
                sql,
                runtime);
    }

    /** Throws {@code refusal} in enforce mode; in observe mode the write goes through without a token, observed. */
    private static long refused(
            TokenDomainException refusal, String why, RewritePlan.Fenced plan, String sql, FencedRuntime runtime)
            throws SQLException {
        if (plan.mode() == FencingMode.ENFORCE) {
            runtime.tracker().increment(Counter.UNFENCED_WRITES_REFUSED);
            throw refusal;
        }
        runtime.observedUnfenced(plan, WriterKind.WRONG_TOKEN_DOMAIN, why, sql);
        return NO_TOKEN;
    }

    /**
     * The cell's value as a write must see it: a lease's cell whose deadline has passed reads as lost, even
     * when the renewer's timer has not got round to it (starved, or stuck behind a blocked log).
     */
    private static long valueForWrite(AtomicLong cell) {
        return DeadlineCell.valueForWrite(cell);
    }

    /** True inside {@code Fencing.unfenced}: writes go through as written. */
    static boolean inUnfencedSection() {
        AtomicLong cell = ContextAccess.current();
        return cell != null && cell.get() == TokenCells.UNFENCED;
    }

    /** The cell bound now, to re-check at executeBatch that its lease still holds. */
    static @Nullable AtomicLong currentCell() {
        return ContextAccess.current();
    }

    static void checkStillHeld(@Nullable AtomicLong cell, RewritePlan.Fenced plan, FencedRuntime runtime)
            throws SQLException {
        if (cell != null && valueForWrite(cell) < 0 && plan.mode() == FencingMode.ENFORCE) {
            runtime.tracker().increment(Counter.LOST_LEASE_WRITES_REFUSED);
            throw new LeaseLostException(runtime.leaseName(-cell.get()), -cell.get());
        }
    }
}
