package dev.fenced.internal.jdbc;

import dev.fenced.FencingMode;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.pg.PgStates;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SettingChanges;
import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;

/**
 * Keeps {@code standard_conforming_strings} on wherever fenced fences. With it off, PostgreSQL and pgjdbc read a
 * backslash in {@code '...'} as an escape, so the text fenced checked is not the text the server lexes: a guard
 * could land inside a string. fenced refuses to connect with it off, refuses statements that turn it off, and
 * refuses a protected write on a connection where it is off anyway (a function may have set it: pgjdbc
 * tracks the server's ParameterStatus reports, so {@link PGConnection#getParameterStatus} is current).
 * (The fenced text is also checked to lex the same with the setting off, so a change pipelined ahead of it in
 * the same batch or text cannot move its guard; see {@code SqlRewriter}.)
 */
public final class ConformingStrings {

    static final String SETTING = "standard_conforming_strings";

    private static final System.Logger LOG = Logs.get("dev.fenced.jdbc");

    private final @Nullable PGConnection pg; // null: not a pgjdbc connection
    /**
     * pgjdbc's own flag, set from the same ParameterStatus report (and what pgjdbc lexes by): a field read on each
     * protected write, where {@link PGConnection#getParameterStatus} is a case-insensitive tree lookup.
     */
    private final @Nullable BaseConnection base;
    /** Whether any protected table is in enforce mode: observe mode logs and never refuses. */
    private final boolean enforcing;

    private ConformingStrings(@Nullable PGConnection pg, @Nullable BaseConnection base, boolean enforcing) {
        this.pg = pg;
        this.base = base;
        this.enforcing = enforcing;
    }

    /**
     * For a freshly opened connection: refuses it when the setting is off (a URL's {@code options=-c ...=off})
     * and a protected table is enforced; logs it otherwise.
     */
    static ConformingStrings atConnect(Connection raw, boolean enforcing) throws SQLException {
        PGConnection pg = raw.isWrapperFor(PGConnection.class) ? raw.unwrap(PGConnection.class) : null;
        BaseConnection base = pg instanceof BaseConnection b ? b : null;
        ConformingStrings c = new ConformingStrings(pg, base, enforcing);
        if (!c.on() && !enforcing) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced (observe): " + SETTING + " is " + c.value()
                            + " on this connection; fenced cannot read SQL as PostgreSQL does here");
        } else if (!c.on()) {
            throw new SQLException(
                    "fenced: " + SETTING + " is " + c.value() + " on this connection; fenced reads SQL"
                            + " as PostgreSQL does only with it on (remove options=-c " + SETTING
                            + "=off, or the role's or"
                            + " database's setting)",
                    PgStates.CONNECTION_REJECTED);
        }
        return c;
    }

    private String value() {
        return pg == null ? "unknown (not a pgjdbc connection)" : String.valueOf(pg.getParameterStatus(SETTING));
    }

    private boolean on() {
        if (base != null) {
            return base.getStandardConformingStrings();
        }
        return pg != null && "on".equals(pg.getParameterStatus(SETTING));
    }

    /**
     * The refusal, in enforce mode, of a text that would turn the setting off, or null; {@code plan} is the text's
     * plan (null or pass-through when it names no protected table). The driver and {@code fenced audit} both ask here.
     */
    public static @Nullable UnsupportedStatementException turnsOff(@Nullable String sql, @Nullable RewritePlan plan) {
        String change = sql == null ? null : SettingChanges.turnsOff(sql, SETTING);
        if (change == null) {
            return null;
        }
        return new UnsupportedStatementException(
                plan instanceof RewritePlan.Protected touched ? touched.table() : "every protected table",
                change + ": fenced needs " + SETTING + " on");
    }

    /**
     * Before {@code plan} runs: refuses a text that would turn the setting off, and a protected write (fenced,
     * or refused and about to be let through) while it is off.
     */
    void check(@Nullable String sql, RewritePlan plan) throws UnsupportedStatementException {
        if (!enforcing) {
            return;
        }
        UnsupportedStatementException turnsOff = turnsOff(sql, plan);
        if (turnsOff != null) {
            throw turnsOff;
        }
        if (plan instanceof RewritePlan.Protected touched && touched.mode() == FencingMode.ENFORCE && !on()) {
            throw new UnsupportedStatementException(
                    touched.table(),
                    "a write on a connection where " + SETTING + " is " + value()
                            + ": fenced needs it on to read the statement as PostgreSQL does");
        }
    }
}
