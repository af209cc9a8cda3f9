package dev.fenced.internal.sql;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.schema.Table;

/** What the fencers of one statement share: the token placeholder, the targets and what they found. */
final class FenceContext {

    final FencingTargets targets;
    final RelativeUpdatePolicy relativePolicy;
    /**
     * The index of the token parameter, written into SQL as {@code CAST(?3 AS bigint)} when the user has two
     * ({@link Guards#token}). Typed, because PostgreSQL cannot infer a type for {@code ? IS NULL} when pgjdbc
     * describes the statement (getParameterMetaData) before anything is bound.
     */
    final int tokenIndex;
    /**
     * Whether the text must also work with a NULL token (an unfenced section): the UPDATE guard then keeps the
     * row's fence value with {@code COALESCE}, which PostgreSQL pays for on every execution. Without it, the
     * plan {@link RewritePlan#tokenRequired() requires} a token.
     */
    final boolean tokenMayBeNull;

    boolean relativeUpdate;
    /** Set when a guard was written that holds only with a token bound. */
    boolean tokenRequired;

    FenceContext(FencingTargets targets, RelativeUpdatePolicy relativePolicy, int tokenIndex, boolean tokenMayBeNull) {
        this.targets = targets;
        this.relativePolicy = relativePolicy;
        this.tokenIndex = tokenIndex;
        this.tokenMayBeNull = tokenMayBeNull;
    }

    /** How the target's row is referred to inside the statement: its alias, else its bare name. */
    static String qualifier(Table table) {
        Alias alias = table.getAlias();
        return alias != null && alias.getName() != null ? alias.getName() : table.getName();
    }

    static TableName nameOf(Table table) {
        String schema = table.getSchemaName();
        return new TableName(schema == null ? null : TableName.fold(schema), TableName.fold(table.getName()));
    }

    void relativeUpdateFound(ProtectedTable table, String column) throws Refusal {
        relativeUpdate = true;
        if (relativePolicy == RelativeUpdatePolicy.REFUSE) {
            throw new Refusal(
                    table.displayName(),
                    "relative update of column " + column + " (it reads its own old value;"
                            + " a stale holder's relative update can land before the newer holder's first write: write the"
                            + " whole new value, or set fenced.relativeUpdates=warn)");
        }
    }
}
