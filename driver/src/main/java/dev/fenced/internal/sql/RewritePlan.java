package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.UnsupportedStatementException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What to do with one SQL text, decided once and cached: pass it through untouched ({@link Passthrough}), send
 * a fenced version of it ({@link Fenced}), or refuse it ({@link Refused}). Callers tell them apart with
 * {@code instanceof}; each kind carries only what it means, nothing left null.
 */
public sealed interface RewritePlan permits RewritePlan.Passthrough, RewritePlan.Protected {

    /**
     * True when running the statement may create, attach or drop a view, partition or child of a protected
     * table (CREATE, ALTER or DROP naming one): the driver reads the catalog again right after it.
     */
    boolean schemaChange();

    /** False for a refusal that says more about the machine's load than the statement (a parse deadline). */
    default boolean cacheable() {
        return true;
    }

    /** The text is sent as written. */
    record Passthrough(boolean schemaChange) implements RewritePlan {

        // Held here, not on the interface: an interface constant of a subtype can deadlock class initialisation.
        /** Shared plan for everything that needs no fencing. */
        public static final Passthrough PASSTHROUGH = new Passthrough(false);

        /** A pass-through that changes the schema around a protected table: read the catalog again after it. */
        public static final Passthrough SCHEMA_CHANGE = new Passthrough(true);

        @Override
        public String toString() {
            return "passthrough";
        }
    }

    /** A plan for a text that touches a protected table: it is fenced or refused. */
    sealed interface Protected extends RewritePlan permits Fenced, Refused {

        /** The strictest mode among the tables involved: ENFORCE if any is enforced. */
        FencingMode mode();

        /** Protected tables the statement writes (or, when refused, touches); never empty. */
        List<String> tables();

        /** The first of {@link #tables()}: the one messages name. */
        default String table() {
            return tables().get(0);
        }
    }

    /**
     * What a fenced text writes and how it must run, decided by the rewriter before the text is assembled.
     *
     * @param tables         the protected tables written, in the order the text writes them
     * @param mode           the strictest of their modes
     * @param relativeUpdate the statement sets a protected column from its own old value
     * @param schemaChange   see {@link RewritePlan#schemaChange()}
     * @param tokenDomain    the token domain of every table written (one statement carries one token, so it writes
     *                       tables of one domain only; a text that reaches two is refused)
     * @param tokenRequired  the text holds a guard that is only right with a token bound (see
     *                       {@link Fenced#tokenRequired()})
     */
    record Writes(
            List<String> tables,
            FencingMode mode,
            boolean relativeUpdate,
            boolean schemaChange,
            String tokenDomain,
            boolean tokenRequired) {
        public Writes {
            tables = List.copyOf(tables);
        }
    }

    /**
     * A fenced text. {@link #sql()} is the text sent to pgjdbc: the user's {@code ?} parameters plus token
     * parameters. {@link #delegateIndexes(int)} maps a user parameter index (1-based) to the indexes it must be
     * bound at (a DELETE's WHERE appears twice), and {@link #tokenIndexes()} lists where the token goes. For plain
     * {@code Statement}s, {@link #render(long)} puts the token in as a literal.
     */
    final class Fenced implements Protected {
        private final String sql;
        /** {@link #sql} cut at each token parameter, for {@link #render}. */
        private final String[] segments;

        private final int[][] userToDelegate;
        private final int[] tokenIndexes;
        private final int delegateParameterCount;
        private final Writes writes;

        Fenced(String sql, String[] segments, int[][] userToDelegate, int[] tokenIndexes, Writes writes) {
            this.sql = sql;
            this.segments = segments;
            this.userToDelegate = userToDelegate;
            this.tokenIndexes = tokenIndexes;
            int count = tokenIndexes.length;
            for (int[] positions : userToDelegate) {
                count += positions.length;
            }
            this.delegateParameterCount = count;
            this.writes = writes;
        }

        /** The SQL to prepare. */
        public String sql() {
            return sql;
        }

        /** {@link #render}'s pieces: {@link #sql} cut at each token parameter. */
        String[] segments() {
            return segments.clone();
        }

        /** This plan with another text of the same shape: the same parameters, token places and writes. */
        Fenced withText(String otherSql, String[] otherSegments) {
            return new Fenced(otherSql, otherSegments, userToDelegate, tokenIndexes, writes);
        }

        /** True when {@code other} sends the same text, binds the same way and writes the same. */
        boolean sameAs(Fenced other) {
            return sql.equals(other.sql)
                    && java.util.Arrays.equals(segments, other.segments)
                    && java.util.Arrays.deepEquals(userToDelegate, other.userToDelegate)
                    && java.util.Arrays.equals(tokenIndexes, other.tokenIndexes)
                    && writes.equals(other.writes);
        }

        /** Number of user parameters ({@code ?} in the original text). */
        public int userParameterCount() {
            return userToDelegate.length;
        }

        /** Delegate indexes for user parameter {@code userIndex} (1-based), or null when out of range. */
        public int @Nullable [] delegateIndexes(int userIndex) {
            if (userIndex < 1 || userIndex > userToDelegate.length) {
                return null;
            }
            return userToDelegate[userIndex - 1];
        }

        /** Delegate indexes where the token is bound. */
        public int[] tokenIndexes() {
            return tokenIndexes;
        }

        /** Parameters of the sent text: the user's, each at every place it is bound, and the token's. */
        public int delegateParameterCount() {
            return delegateParameterCount;
        }

        @Override
        public List<String> tables() {
            return writes.tables();
        }

        @Override
        public FencingMode mode() {
            return writes.mode();
        }

        /** True when the statement sets a protected column from its own old value. */
        public boolean relativeUpdate() {
            return writes.relativeUpdate();
        }

        @Override
        public boolean schemaChange() {
            return writes.schemaChange();
        }

        /** The token domain of every table the text writes. */
        public String tokenDomain() {
            return writes.tokenDomain();
        }

        /**
         * True when the text holds a guard that is only right with a token bound (an enforced UPDATE's
         * {@code ELSE ?}: a NULL there would clear the row's fence value). Run with a NULL token (inside
         * {@code Fencing.unfenced}), such a text is replaced by {@link SqlRewriter#planForNullToken}'s, or refused
         * when it was prepared already.
         */
        public boolean tokenRequired() {
            return writes.tokenRequired();
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

        @Override
        public String toString() {
            return "fenced " + tables() + ": " + sql;
        }
    }

    /**
     * A refused text: {@code construct} says why. With {@code schemaChange} the text holds DDL (CREATE, ALTER,
     * DROP), so when it runs after all (inside {@code Fencing.unfenced}, or in observe mode) the catalog is read
     * again right after it, as for DDL that passes: {@code ALTER TABLE kid INHERIT t} run unfenced makes {@code kid}
     * protected from then on.
     */
    record Refused(String table, String construct, FencingMode mode, boolean cacheable, boolean schemaChange)
            implements Protected {

        @Override
        public List<String> tables() {
            return List.of(table);
        }

        /** A fresh exception for the refusal. */
        public UnsupportedStatementException refusal() {
            return new UnsupportedStatementException(table, construct);
        }

        @Override
        public String toString() {
            return "refused " + table + ": " + construct;
        }
    }
}
