package dev.fenced.internal.cli;

import dev.fenced.UnsupportedStatementException;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.jdbc.ConformingStrings;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlShape;
import dev.fenced.internal.sql.TextFacts;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code audit}: every statement the application sends that reaches a protected table, run through the driver's
 * own rewriter as enforce mode would run it, with how often it ran and its verdict. Exit 1 when enforce mode would
 * refuse one of them: what has to change in the application before the switch.
 */
final class AuditCommand implements Command {

    static final Option STATEMENTS = Option.of("--statements", "FILE", "read statements from FILE, one per line");
    static final Option LOG = Option.of(
            "--log", "FILE", "read statements from PostgreSQL's log (log_statement = mod; stderr, csvlog or jsonlog)");

    /** What enforce mode does with one statement shape. */
    enum Verdict {
        FENCED_ALREADY(
                "fenced",
                "sent through the fenced driver, already rewritten; whether a token was bound is not"
                        + " in the text (without one, observe mode sends NULL): the writer inventory names writers without one"),
        FENCED("fenced", "fenced rewrites it; enforce refuses it from a writer with no token bound"),
        /* fenced, and the driver logs a warning for it each time (fenced.relativeUpdates=warn) */
        FENCED_RELATIVE("fenced, relative update", ExplainCommand.RELATIVE_UPDATE),
        REFUSED("refused", null),
        NO_TOKEN("no token needed", "reads or changes the schema; nothing to fence"),
        NOT_PROTECTED("not a protected write", "names a protected table but writes only others");

        final String label;
        final @Nullable String detail;

        Verdict(String label, @Nullable String detail) {
            this.label = label;
            this.detail = detail;
        }
    }

    record Row(
            String shape,
            long calls,
            Verdict verdict,
            @Nullable String reason,
            List<String> tables) {}

    @Override
    public String name() {
        return "audit";
    }

    @Override
    public String summary() {
        return "every write that reaches protected tables, and what enforce mode would refuse";
    }

    @Override
    public String description() {
        return "fenced audit --url URL --tables LIST [--statements FILE | --log FILE] [--format text|json|markdown]\n\n"
                + "Takes the application's statements from pg_stat_statements on the --url database (the default;\n"
                + "the role needs pg_read_all_stats to see other roles' statements), from --statements FILE (one\n"
                + "statement per line) or from --log FILE (PostgreSQL's log with log_statement = mod: stderr,\n"
                + "csvlog or jsonlog, told by the .csv/.json extension or by content), and runs each through the\n"
                + "driver's own rewriter as enforce mode would (tables in observe mode are planned as enforced; $1\n"
                + "parameters are read as JDBC's ?). Lists each statement shape (constants and $1 written ?, as the\n"
                + "writer inventory shows it) reaching a protected table with its calls and verdict: fenced,\n"
                + "fenced, relative update (SET n = n + 1, which the driver warns about), refused (with the\n"
                + "reason), no token needed, not a protected write. With a file and --url, plans from the\n"
                + "catalog; without --url, from the table names only.\n"
                + "Exit status 1 when enforce mode would refuse a statement; 2 when pg_stat_statements (or the\n"
                + "grant to read it) is missing.";
    }

    @Override
    public List<Option> options() {
        return List.of(STATEMENTS, LOG, Option.FORMAT);
    }

    @Override
    public int run(Invocation inv) throws CliException {
        if (inv.args().has(STATEMENTS) && inv.args().has(LOG)) {
            throw CliException.usage("give --statements or --log, not both");
        }
        FencedConfig config = inv.configWithTables();
        Output.Format format = inv.format();
        List<StatementSources.Seen> seen;
        Planner planner;
        @Nullable String source;
        if (inv.args().has(STATEMENTS) || inv.args().has(LOG)) {
            seen = inv.args().has(STATEMENTS)
                    ? StatementSources.statementsFile(Path.of(inv.args().value(STATEMENTS)))
                    : StatementSources.logFile(Path.of(inv.args().value(LOG)));
            source = inv.args().has(STATEMENTS)
                    ? inv.args().value(STATEMENTS)
                    : inv.args().value(LOG);
            Connection c = inv.url() == null ? null : inv.connect();
            try {
                planner = Planner.of(config, c, true);
            } finally {
                if (c != null) {
                    Database.close(c);
                }
            }
        } else {
            Connection c = inv.connect();
            try {
                seen = StatementSources.pgStatStatements(c);
                planner = Planner.of(config, c, true);
            } finally {
                Database.close(c);
            }
            source = "pg_stat_statements";
        }
        List<Row> rows = new ArrayList<>();
        long others = 0;
        for (StatementSources.Seen s : seen) {
            Row row = judge(planner, s);
            if (row == null) {
                others++;
            } else {
                rows.add(row);
            }
        }
        rows = merge(rows);
        rows.sort(Comparator.comparing((Row r) -> r.verdict().ordinal() == Verdict.REFUSED.ordinal() ? 0 : 1)
                .thenComparing(r -> r.verdict().ordinal())
                .thenComparing(Row::calls, Comparator.reverseOrder()));
        boolean refuses = rows.stream().anyMatch(r -> r.verdict() == Verdict.REFUSED);
        print(inv, format, source, rows, others, refuses, planner.fromCatalog());
        return refuses ? CliException.ACTION : CliException.OK;
    }

    /**
     * The verdict for one statement, or null when it cannot touch a protected table (the driver does not parse it).
     * The text planned is the statement itself (its constants can decide a refusal); the row shows its
     * {@link SqlShape}, the one the writer inventory shows for the same statement.
     */
    static @Nullable Row judge(Planner planner, StatementSources.Seen s) {
        String text = SqlShape.withJdbcParameters(s.text());
        String display = SqlShape.of(s.text());
        boolean concerns = planner.concerns(text);
        RewritePlan plan = concerns ? planner.plan(text) : null;
        // checked by the driver before any plan, on every text: turning standard_conforming_strings off is refused
        // in enforce mode whatever the text names
        UnsupportedStatementException turnsOff = ConformingStrings.turnsOff(text, plan);
        if (turnsOff != null) {
            return new Row(
                    display,
                    s.calls(),
                    Verdict.REFUSED,
                    turnsOff.getMessage(),
                    plan instanceof RewritePlan.Protected touched ? touched.tables() : List.of());
        }
        if (!concerns) {
            return null;
        }
        if (plan instanceof RewritePlan.Fenced fenced) {
            return new Row(
                    display,
                    s.calls(),
                    fenced.relativeUpdate() ? Verdict.FENCED_RELATIVE : Verdict.FENCED,
                    null,
                    fenced.tables());
        }
        if (plan instanceof RewritePlan.Refused refused) {
            String construct = refused.construct();
            if ((construct.startsWith("the statement sets the fence column")
                            || construct.startsWith("a name that starts like fenced's own"))
                    && SqlShape.carriesFencedToken(text)) {
                return new Row(display, s.calls(), Verdict.FENCED_ALREADY, null, refused.tables());
            }
            return new Row(
                    display, s.calls(), Verdict.REFUSED, refused.refusal().getMessage(), refused.tables());
        }
        return new Row(
                display,
                s.calls(),
                TextFacts.mayWrite(text) ? Verdict.NOT_PROTECTED : Verdict.NO_TOKEN,
                null,
                List.of());
    }

    /**
     * Statements of one shape with one verdict are one row. Texts that differ only in constants can differ in
     * verdict (a function body naming a protected table): those stay separate rows, so no refusal is hidden.
     */
    private static List<Row> merge(List<Row> rows) {
        Map<List<Object>, Row> byShape = new LinkedHashMap<>();
        for (Row r : rows) {
            byShape.merge(
                    java.util.Arrays.asList(r.shape(), r.verdict(), r.reason(), r.tables()),
                    r,
                    (a, b) -> new Row(a.shape(), a.calls() + b.calls(), a.verdict(), a.reason(), a.tables()));
        }
        return new ArrayList<>(byShape.values());
    }

    private static String verdictText(Row r) {
        return r.verdict().label + (r.verdict() == Verdict.FENCED_ALREADY ? " (sent through fenced)" : "");
    }

    /** The refusal without its "statement on protected table t refused:" lead, which the tables column says. */
    private static String reasonText(Row r) {
        if (r.verdict() == Verdict.FENCED_RELATIVE) {
            return "write whole new values: a stale holder's relative update can land before the newer holder's first write";
        }
        if (r.verdict() != Verdict.REFUSED) {
            return "";
        }
        String m = java.util.Objects.requireNonNull(r.reason(), "a refused row has a reason")
                .replaceFirst("^fenced: ", "");
        int at = m.indexOf(" refused: ");
        return at < 0 ? m : m.substring(at + " refused: ".length());
    }

    private static void print(
            Invocation inv,
            Output.Format format,
            @Nullable String source,
            List<Row> rows,
            long others,
            boolean refuses,
            boolean fromCatalog) {
        long refused = rows.stream().filter(r -> r.verdict() == Verdict.REFUSED).count();
        long relative = rows.stream()
                .filter(r -> r.verdict() == Verdict.FENCED_RELATIVE)
                .count();
        String summary = rows.size() + " statement shape(s) reach protected tables, " + refused
                + " refused by enforce mode, " + relative + " relative update(s) the driver warns about; " + others
                + " other statement(s) cannot touch a protected table";
        switch (format) {
            case JSON -> {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("source", source);
                doc.put("catalog", fromCatalog);
                doc.put("enforceRefuses", refuses);
                doc.put("relativeUpdates", relative);
                doc.put("otherStatements", others);
                List<Object> list = new ArrayList<>();
                for (Row r : rows) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("statement", r.shape());
                    m.put("calls", r.calls());
                    m.put("verdict", r.verdict().label);
                    m.put("detail", r.verdict() == Verdict.REFUSED ? r.reason() : r.verdict().detail);
                    m.put("tables", r.tables());
                    list.add(m);
                }
                doc.put("statements", list);
                inv.out().print(Output.json(doc));
            }
            case MARKDOWN -> {
                inv.out().println("# fenced audit (" + source + ")");
                inv.out().println();
                if (!fromCatalog) {
                    inv.out().println("_" + Planner.NAMES_ONLY + "_");
                    inv.out().println();
                }
                inv.out().print(table(rows).markdown());
                inv.out().println();
                inv.out().println(summary);
            }
            default -> {
                inv.out()
                        .println(
                                "fenced audit (" + source + ")" + (fromCatalog ? "" : "; note: " + Planner.NAMES_ONLY));
                inv.out().println();
                if (!rows.isEmpty()) {
                    inv.out().print(table(rows).text(70));
                    inv.out().println();
                }
                inv.out().println(summary);
                if (refuses) {
                    inv.out()
                            .println("enforce mode would refuse the statements marked refused: change them before"
                                    + " switching fenced.mode to enforce");
                }
            }
        }
    }

    private static Output.Table table(List<Row> rows) {
        Output.Table t = new Output.Table("calls", "verdict", "tables", "statement", "reason");
        for (Row r : rows) {
            t.row(Long.toString(r.calls()), verdictText(r), String.join(", ", r.tables()), r.shape(), reasonText(r));
        }
        return t;
    }
}
