package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.UnsupportedStatementException;
import java.util.List;

/**
 * What to do with one SQL text, decided once and cached: pass it through untouched, send a fenced
 * version of it, or refuse it.
 *
 * <p>For a fenced plan, {@link #sql()} is the text sent to pgjdbc: the user's {@code ?} parameters plus
 * token parameters. {@link #delegateIndexes(int)} maps a user parameter index (1-based) to the indexes
 * it must be bound at (a DELETE's WHERE appears twice), and {@link #tokenIndexes()} lists where the
 * token goes. For plain {@code Statement}s, {@link #render(long)} puts the token in as a literal.
 */
public final class RewritePlan {

    /** Shared plan for everything that needs no fencing. */
    public static final RewritePlan PASSTHROUGH = new RewritePlan(Kind.PASSTHROUGH, null, null, null, null, 0, null,
            FencingMode.OFF, null, null, false, true, false, null, false);

    /** A pass-through that changes the schema around a protected table: read the catalog again after it. */
    public static final RewritePlan SCHEMA_CHANGE = new RewritePlan(Kind.PASSTHROUGH, null, null, null, null, 0, null,
            FencingMode.OFF, null, null, false, true, true, null, false);

    public enum Kind {
        PASSTHROUGH, FENCED, REFUSED
    }

    private final Kind kind;
    private final String sql;
    private final String[] segments;
    private final int[][] userToDelegate;
    private final int[] tokenIndexes;
    private final int delegateParameterCount;
    private final List<String> tables;
    private final FencingMode mode;
    private final String refusedTable;
    private final String refusedConstruct;
    private final boolean relativeUpdate;
    private final boolean cacheable;
    private final boolean schemaChange;
    private final String tokenDomain;
    private final boolean tokenRequired;

    private RewritePlan(Kind kind, String sql, String[] segments, int[][] userToDelegate, int[] tokenIndexes,
                        int delegateParameterCount, List<String> tables, FencingMode mode, String refusedTable,
                        String refusedConstruct, boolean relativeUpdate, boolean cacheable, boolean schemaChange,
                        String tokenDomain, boolean tokenRequired) {
        this.kind = kind;
        this.sql = sql;
        this.segments = segments;
        this.userToDelegate = userToDelegate;
        this.tokenIndexes = tokenIndexes;
        this.delegateParameterCount = delegateParameterCount;
        this.tables = tables;
        this.mode = mode;
        this.refusedTable = refusedTable;
        this.refusedConstruct = refusedConstruct;
        this.relativeUpdate = relativeUpdate;
        this.cacheable = cacheable;
        this.schemaChange = schemaChange;
        this.tokenDomain = tokenDomain;
        this.tokenRequired = tokenRequired;
    }

    static RewritePlan fenced(String sql, String[] segments, int[][] userToDelegate, int[] tokenIndexes,
                              int delegateParameterCount, List<String> tables, FencingMode mode,
                              boolean relativeUpdate, boolean schemaChange, String tokenDomain,
                              boolean tokenRequired) {
        return new RewritePlan(Kind.FENCED, sql, segments, userToDelegate, tokenIndexes, delegateParameterCount,
                List.copyOf(tables), mode, null, null, relativeUpdate, true, schemaChange, tokenDomain, tokenRequired);
    }

    static RewritePlan refused(String table, String construct, FencingMode mode, boolean cacheable) {
        return refused(table, construct, mode, cacheable, false);
    }

    /**
     * {@code schemaChange}: the refused text holds DDL (CREATE, ALTER, DROP), so when it runs after all (inside
     * {@code Fencing.unfenced}, or in observe mode) the catalog is read again right after it, as for DDL that passes:
     * {@code ALTER TABLE kid INHERIT t} run unfenced makes {@code kid} protected from then on.
     */
    static RewritePlan refused(String table, String construct, FencingMode mode, boolean cacheable, boolean schemaChange) {
        return new RewritePlan(Kind.REFUSED, null, null, null, null, 0, List.of(table), mode, table, construct, false,
                cacheable, schemaChange, null, false);
    }

    /**
     * The token domain of every table a fenced plan writes (one statement carries one token, so it writes tables of
     * one domain only; a text that reaches two is refused); null for other plans.
     */
    public String tokenDomain() {
        return tokenDomain;
    }

    /**
     * True when running the statement may create, attach or drop a view, partition or child of a protected
     * table (CREATE, ALTER or DROP naming one): the driver reads the catalog again right after it.
     */
    public boolean schemaChange() {
        return schemaChange;
    }

    /**
     * True when the text holds a guard that is only right with a token bound (an enforced UPDATE's
     * {@code ELSE ?}: a NULL there would clear the row's fence value). Run with a NULL token (inside
     * {@code Fencing.unfenced}), such a text is replaced by {@link SqlRewriter#planForNullToken}'s, or refused
     * when it was prepared already.
     */
    public boolean tokenRequired() {
        return tokenRequired;
    }

    /** False for a refusal that says more about the machine's load than the statement (a parse deadline). */
    public boolean cacheable() {
        return cacheable;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isPassthrough() {
        return kind == Kind.PASSTHROUGH;
    }

    public boolean isFenced() {
        return kind == Kind.FENCED;
    }

    public boolean isRefused() {
        return kind == Kind.REFUSED;
    }

    /** The SQL to prepare (fenced plans). */
    public String sql() {
        return sql;
    }

    /** Number of user parameters ({@code ?} in the original text). */
    public int userParameterCount() {
        return userToDelegate == null ? 0 : userToDelegate.length;
    }

    /** Delegate indexes for user parameter {@code userIndex} (1-based), or null when out of range. */
    public int[] delegateIndexes(int userIndex) {
        if (userToDelegate == null || userIndex < 1 || userIndex > userToDelegate.length) {
            return null;
        }
        return userToDelegate[userIndex - 1];
    }

    /** Delegate indexes where the token is bound. */
    public int[] tokenIndexes() {
        return tokenIndexes;
    }

    public int delegateParameterCount() {
        return delegateParameterCount;
    }

    /** Protected tables the statement writes (or, when refused, touches). */
    public List<String> tables() {
        return tables;
    }

    /** The strictest mode among the tables involved: ENFORCE if any is enforced. */
    public FencingMode mode() {
        return mode;
    }

    /** True when the statement sets a protected column from its own old value. */
    public boolean relativeUpdate() {
        return relativeUpdate;
    }

    public String refusedConstruct() {
        return refusedConstruct;
    }

    /** A fresh exception for a refused plan. */
    public UnsupportedStatementException refusal() {
        return new UnsupportedStatementException(refusedTable, refusedConstruct);
    }

    /**
     * The fenced text with the token written in as a literal, for plain {@code Statement} execution where
     * nothing can be bound; {@code token <= 0} writes NULL (no fencing, the row keeps its fence value).
     */
    public String render(long token) {
        String literal = token > 0 ? Long.toString(token) : "NULL";
        StringBuilder b = new StringBuilder(sql.length() + tokenIndexes.length * 8);
        b.append(segments[0]);
        for (int i = 1; i < segments.length; i++) {
            b.append(literal).append(segments[i]);
        }
        return b.toString();
    }

    /** True when the fenced text can be sent as a plain statement (it has no user parameters). */
    public boolean renderable() {
        return segments != null;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case PASSTHROUGH -> "passthrough";
            case FENCED -> "fenced " + tables + ": " + sql;
            case REFUSED -> "refused " + refusedTable + ": " + refusedConstruct;
        };
    }
}
