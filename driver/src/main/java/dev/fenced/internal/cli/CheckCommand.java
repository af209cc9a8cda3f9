package dev.fenced.internal.cli;

import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.jdbc.ConnectionFactory;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code check}: is every protected table ready for enforce mode? The fence column, the relations that share or
 * reach its rows, the writes fenced cannot see, the server's durability and replication, the SQL that fixes what
 * is missing, and each table's roll-out state. Exit 0 when every table is ready, 1 otherwise.
 */
final class CheckCommand implements Command {

    static final Option MIGRATION = Option.of(
            "--migration",
            "FORMAT DIR",
            "write the migration that adds the" + " missing fence columns: flyway, liquibase, liquibase-yaml or sql");

    static final Option INVENTORY = Option.of(
            "--inventory",
            "FILE",
            "the application's writer inventory report"
                    + " (fenced.observe.report, JSON or Markdown): each writer still without a token blocks enforce mode");

    @Override
    public String name() {
        return "check";
    }

    @Override
    public String summary() {
        return "is every protected table ready for enforce mode? what is missing, with the SQL to fix it";
    }

    @Override
    public String description() {
        return "fenced check --url URL --tables LIST [--migration flyway|liquibase|liquibase-yaml|sql DIR]\n"
                + "             [--inventory FILE]\n\n"
                + "For each protected table: the fence column (present, bigint), the partitions, child tables and\n"
                + "views that share or reach its rows, and each write fenced cannot see (triggers, rules, functions\n"
                + "whose body names the table, foreign keys with cascading actions from unprotected tables), as\n"
                + "warnings; the server: primary or standby, synchronous_commit, replication; what is missing, with\n"
                + "the exact SQL to fix it; the table's roll-out state (column missing, observe, enforce).\n"
                + "--inventory reads the writer inventory the application wrote in observe mode (fenced.observe.report,\n"
                + "JSON or Markdown): each table's state then counts its writers still without a token and those fenced\n"
                + "cannot fence, each named with its call site and statement shape; any of them blocks enforce mode.\n"
                + "--migration writes that SQL as a Flyway script (V<timestamp>__fenced_columns.sql), a Liquibase\n"
                + "changelog (XML or YAML) or plain SQL into DIR. Reads only; changes nothing in the database.\n"
                + "Exit status 0 when every protected table is ready for enforce mode, 1 when something needs action\n"
                + "(also on a standby: run check against the primary).";
    }

    @Override
    public List<Option> options() {
        return List.of(MIGRATION, INVENTORY, Option.FORMAT);
    }

    @Override
    public int run(Invocation inv) throws CliException {
        FencedConfig config = inv.configWithTables();
        Output.Format format = inv.format();
        Migration.Format migrationFormat = null;
        @Nullable Path migrationDir = null;
        if (inv.args().has(MIGRATION)) {
            migrationFormat =
                    Migration.Format.parse(inv.args().values(MIGRATION).get(0));
            migrationDir = Path.of(inv.args().values(MIGRATION).get(1));
        }
        // read before connecting: a bad report is bad usage, whatever the database says
        InventoryFile inventory = inv.args().has(INVENTORY)
                ? InventoryFile.read(Path.of(inv.args().value(INVENTORY)))
                : null;
        List<Finding> server;
        List<TableCheck> tables;
        List<Finding> reaching;
        List<Finding> role;
        Connection c = inv.connect();
        try {
            server = ServerCheck.read(c);
            role = RoleFindings.read(c, config);
            tables = CatalogCheck.tables(c, config);
            reaching = CatalogCheck.reaching(c, config);
        } catch (SQLException e) {
            throw CliException.action("cannot read the catalog: " + Database.oneLine(e));
        } finally {
            Database.close(c);
        }
        if (inventory != null) {
            tables.forEach(t -> t.inventory(inventory));
        }
        List<ColumnFix> fixes = new ArrayList<>();
        tables.forEach(t -> fixes.addAll(t.fixes));
        @Nullable String wrote = null;
        if (migrationFormat != null) {
            wrote = fixes.isEmpty()
                    ? "nothing to migrate: every fence column is in place"
                    : "wrote "
                            + Migration.write(
                                    migrationFormat,
                                    java.util.Objects.requireNonNull(migrationDir),
                                    fixes,
                                    ZonedDateTime.now());
        }
        // a standby (missing at the server level) needs action however ready its tables are
        // a role that cannot write the table or use fenced's objects is not ready, however the tables look
        boolean ready = tables.stream().allMatch(TableCheck::ready)
                && server.stream().noneMatch(f -> f.level() == Finding.Level.MISSING)
                && role.stream().noneMatch(f -> f.level() == Finding.Level.MISSING);
        server = new ArrayList<>(server);
        server.addAll(role);
        switch (format) {
            case JSON -> inv.out().print(Output.json(json(inv.requiredUrl(), server, tables, reaching, ready, wrote)));
            case MARKDOWN -> markdown(inv.out(), inv.requiredUrl(), server, tables, reaching, ready, fixes, wrote);
            default -> text(inv.out(), inv.requiredUrl(), server, tables, reaching, ready, fixes, wrote);
        }
        return ready ? CliException.OK : CliException.ACTION;
    }

    private static Map<String, Object> json(
            String url,
            List<Finding> server,
            List<TableCheck> tables,
            List<Finding> reaching,
            boolean ready,
            @Nullable String wrote) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("url", ConnectionFactory.masked(url));
        m.put("ready", ready);
        m.put("server", server.stream().map(Finding::json).toList());
        m.put("tables", tables.stream().map(TableCheck::json).toList());
        m.put("reaching", reaching.stream().map(Finding::json).toList());
        if (wrote != null) {
            m.put("migration", wrote);
        }
        return m;
    }

    private static void text(
            PrintStream out,
            String url,
            List<Finding> server,
            List<TableCheck> tables,
            List<Finding> reaching,
            boolean ready,
            List<ColumnFix> fixes,
            @Nullable String wrote) {
        out.println("fenced check " + ConnectionFactory.masked(url));
        out.println();
        out.println("server");
        findings(out, server);
        for (TableCheck t : tables) {
            out.println();
            out.println("table " + t.table.displayName() + " (fence column " + t.table.column() + ", mode "
                    + t.table.mode().key() + "): " + t.state());
            findings(out, t.findings);
        }
        if (!reaching.isEmpty()) {
            out.println();
            out.println("relations whose writes reach protected rows");
            findings(out, reaching);
        }
        out.println();
        out.println(summary(tables, ready, fixes, RoleFindings.blocked(server)));
        Output.Table state = new Output.Table("table", "mode", "roll-out state");
        for (TableCheck t : tables) {
            state.row(t.table.displayName(), t.table.mode().key(), t.state());
        }
        out.print(state.text(60));
        if (wrote != null) {
            out.println(wrote);
        }
    }

    private static void markdown(
            PrintStream out,
            String url,
            List<Finding> server,
            List<TableCheck> tables,
            List<Finding> reaching,
            boolean ready,
            List<ColumnFix> fixes,
            @Nullable String wrote) {
        out.println("# fenced check " + ConnectionFactory.masked(url));
        out.println();
        Output.Table state = new Output.Table("table", "mode", "roll-out state");
        for (TableCheck t : tables) {
            state.row(t.table.displayName(), t.table.mode().key(), t.state());
        }
        out.print(state.markdown());
        out.println();
        out.println(summary(tables, ready, fixes, RoleFindings.blocked(server)));
        Output.Table all = new Output.Table("where", "level", "finding", "fix");
        for (Finding f : server) {
            all.row("server", level(f), f.text(), "");
        }
        for (TableCheck t : tables) {
            for (Finding f : t.findings) {
                all.row(t.table.displayName(), level(f), f.text(), f.fix() == null ? "" : "`" + f.fix() + "`");
            }
        }
        for (Finding f : reaching) {
            all.row("reaching", level(f), f.text(), "");
        }
        out.println();
        out.print(all.markdown());
        if (wrote != null) {
            out.println();
            out.println(wrote);
        }
    }

    private static String summary(List<TableCheck> tables, boolean ready, List<ColumnFix> fixes, boolean roleBlocked) {
        long readyCount = roleBlocked
                ? 0 // the session's role cannot work with them: nothing is ready for it
                : tables.stream().filter(TableCheck::ready).count();
        String s = readyCount + " of " + tables.size() + " protected tables ready for enforce mode";
        if (!fixes.isEmpty()) {
            s += "; fence columns missing: fenced check --migration flyway|liquibase|sql DIR writes the migration";
        }
        return ready ? s : s + "; needs action";
    }

    private static void findings(PrintStream out, List<Finding> findings) {
        for (Finding f : findings) {
            out.println(String.format("  %-8s%s", level(f), f.text()));
            if (f.fix() != null) {
                out.println(String.format("  %-8s%s", "fix", f.fix()));
            }
        }
    }

    private static String level(Finding f) {
        return f.level().name().toLowerCase(Locale.ROOT);
    }
}
