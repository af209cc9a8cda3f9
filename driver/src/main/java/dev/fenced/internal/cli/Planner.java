package dev.fenced.internal.cli;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.jdbc.CatalogFacts;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The driver's rewriter, built as the driver builds it: from what the catalog says when there is a database
 * (views, partitions, children, column lists, keys), else from the configured names only.
 */
final class Planner {

    /** What planning without a catalog assumes, said wherever it is used. */
    static final String NAMES_ONLY = "planned from the table names only (no --url, no catalog): views, partitions"
            + " and child tables of these tables are not known, INSERTs without a column list are refused (the"
            + " column order is unknown) and DELETEs record no tombstones; give --url to plan as the driver does on"
            + " your database";

    private final SqlRewriter rewriter;
    private final boolean fromCatalog;

    private Planner(SqlRewriter rewriter, boolean fromCatalog) {
        this.rewriter = rewriter;
        this.fromCatalog = fromCatalog;
    }

    /**
     * With {@code asEnforced}, tables in observe mode are planned as enforce mode would plan them: what the audit
     * asks is what enforce would refuse. Tables turned off stay off.
     */
    static Planner of(FencedConfig config, @Nullable Connection connection, boolean asEnforced) throws CliException {
        List<ProtectedTable> tables = new ArrayList<>();
        for (ProtectedTable t : config.tables()) {
            tables.add(
                    asEnforced && t.mode() == FencingMode.OBSERVE
                            ? new ProtectedTable(
                                    t.name(), t.column(), FencingMode.ENFORCE, t.tokenDomain(), t.derivedFrom())
                            : t);
        }
        FencingTargets targets;
        if (connection == null) {
            targets = FencingTargets.of(tables);
        } else {
            try {
                targets = CatalogFacts.targets(connection, config, tables);
            } catch (SQLException e) {
                throw CliException.action("cannot read the catalog: " + Database.oneLine(e));
            }
        }
        return new Planner(
                new SqlRewriter(targets, config.relativeUpdates(), config.parseTimeout()), connection != null);
    }

    RewritePlan plan(String sql) {
        return rewriter.plan(sql);
    }

    /** False when the text cannot touch a protected table: the driver passes it through without parsing. */
    boolean concerns(String sql) {
        return rewriter.needsPlanning(sql);
    }

    boolean fromCatalog() {
        return fromCatalog;
    }

    /** "?1 -> $1, ?2 -> $4; token -> $2, $3": where each parameter the application binds goes in the sent text. */
    static String parameterPlan(RewritePlan.Fenced plan) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= plan.userParameterCount(); i++) {
            b.append(i == 1 ? "" : ", ")
                    .append("?")
                    .append(i)
                    .append(" -> ")
                    .append(dollars(java.util.Objects.requireNonNull(plan.delegateIndexes(i))));
        }
        if (b.length() > 0) {
            b.append("; ");
        }
        return b.append("token -> ").append(dollars(plan.tokenIndexes())).toString();
    }

    private static String dollars(int[] indexes) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < indexes.length; i++) {
            b.append(i == 0 ? "" : " and ").append('$').append(indexes[i]);
        }
        return b.toString();
    }
}
