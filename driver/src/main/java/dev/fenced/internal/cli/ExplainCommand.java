package dev.fenced.internal.cli;

import dev.fenced.FencingMode;
import dev.fenced.internal.sql.RewritePlan;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code explain [--url URL] [--tables ...] SQL...}: for each statement, what fenced would send (the rewritten
 * SQL and where each parameter and the token are bound) or why it refuses it. The driver's rewriter decides;
 * with {@code --url} from the catalog, as the driver would on that database.
 */
final class ExplainCommand implements Command {

    @Override
    public String name() {
        return "explain";
    }

    @Override
    public String summary() {
        return "show what fenced would send for each SQL statement, or why it refuses it";
    }

    @Override
    public String description() {
        return "fenced explain [--url URL] [--tables LIST] [options] SQL...\n\n"
                + "Each argument is one SQL text, as the application would prepare it (JDBC ? parameters). Prints\n"
                + "the text fenced sends and where the application's parameters and the token are bound, or the\n"
                + "refusal enforce mode raises. Without --url: " + Planner.NAMES_ONLY + ".\n"
                + "Exit status 1 when enforce mode would refuse a statement.";
    }

    @Override
    public List<Option> options() {
        return List.of(Option.FORMAT);
    }

    /** The driver's warning for {@code SET n = n + 1} (fenced.relativeUpdates=warn); audit flags the same. */
    static final String RELATIVE_UPDATE = "relative update (SET x = x + ...): a stale holder's relative update can land"
            + " before the newer holder's first write; write whole new values";

    @Override
    public int run(Invocation inv) throws CliException {
        List<String> statements = inv.args().arguments();
        if (statements.isEmpty()) {
            throw CliException.usage("explain needs at least one SQL statement: fenced explain --tables totals"
                    + " \"UPDATE totals SET amount = ? WHERE id = ?\"");
        }
        for (String sql : statements) {
            // what audit rejects as not SQL, explain rejects too (exit 2), rather than calling it passed through
            if (!StatementSources.isSql(sql.strip())) {
                throw CliException.usage("explain: not an SQL statement: " + StatementSources.abbreviated(sql.strip())
                        + " (give each statement as one argument, quoted)");
            }
        }
        var config = inv.configWithTables();
        Output.Format format = inv.format();
        Connection c = inv.url() == null ? null : inv.connect();
        Planner planner;
        try {
            planner = Planner.of(config, c, false);
        } finally {
            if (c != null) {
                Database.close(c);
            }
        }
        int status = CliException.OK;
        List<Map<String, Object>> results = new ArrayList<>();
        for (String sql : statements) {
            RewritePlan plan = planner.plan(sql);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("sql", sql);
            if (plan instanceof RewritePlan.Fenced fenced) {
                r.put("verdict", "fenced");
                r.put("tables", fenced.tables());
                r.put("mode", fenced.mode().key());
                r.put("sends", fenced.sql());
                r.put("parameters", Planner.parameterPlan(fenced));
                if (fenced.relativeUpdate()) {
                    r.put("warning", RELATIVE_UPDATE);
                }
            } else if (plan instanceof RewritePlan.Refused refused) {
                r.put("verdict", "refused");
                r.put("mode", refused.mode().key());
                r.put("reason", refused.refusal().getMessage());
                if (refused.mode() == FencingMode.ENFORCE) {
                    status = CliException.ACTION;
                } else {
                    r.put(
                            "note",
                            "the table is in " + refused.mode().key() + " mode: the statement runs unfenced,"
                                    + " counted and logged; enforce mode refuses it");
                }
            } else {
                r.put("verdict", "passed through");
                r.put("reason", "it writes no protected table; sent unchanged");
            }
            results.add(r);
        }
        print(inv, format, results, planner.fromCatalog());
        return status;
    }

    private static void print(
            Invocation inv, Output.Format format, List<Map<String, Object>> results, boolean fromCatalog) {
        String assumption = fromCatalog ? null : Planner.NAMES_ONLY;
        switch (format) {
            case JSON -> {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("catalog", fromCatalog);
                if (assumption != null) {
                    doc.put("assumes", assumption);
                }
                doc.put("statements", results);
                inv.out().print(Output.json(doc));
            }
            case MARKDOWN -> {
                Output.Table t = new Output.Table("statement", "verdict", "sends / reason", "parameters");
                for (Map<String, Object> r : results) {
                    t.row(
                            "`" + r.get("sql") + "`",
                            (String) r.get("verdict"),
                            r.containsKey("sends") ? "`" + r.get("sends") + "`" : (String) r.get("reason"),
                            r.containsKey("parameters") ? (String) r.get("parameters") : "");
                }
                if (assumption != null) {
                    inv.out().println("_" + assumption + "_\n");
                }
                inv.out().print(t.markdown());
            }
            default -> {
                if (assumption != null) {
                    inv.out().println("note: " + assumption + ".");
                    inv.out().println();
                }
                for (Map<String, Object> r : results) {
                    inv.out().println(r.get("sql"));
                    if (r.containsKey("sends")) {
                        inv.out().println("  fenced " + r.get("tables") + " (" + r.get("mode") + " mode), sends:");
                        inv.out().println("    " + r.get("sends"));
                        inv.out().println("  parameters: " + r.get("parameters"));
                    } else {
                        inv.out().println("  " + r.get("verdict") + ": " + r.get("reason"));
                    }
                    for (String extra : new String[] {"warning", "note"}) {
                        if (r.containsKey(extra)) {
                            inv.out().println("  " + extra + ": " + r.get(extra));
                        }
                    }
                    inv.out().println();
                }
            }
        }
    }
}
