package dev.fenced.internal.cli;

import dev.fenced.FencingException;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.jdbc.ConnectionFactory;
import dev.fenced.internal.jdbc.DdlNotices;
import dev.fenced.internal.jdbc.SchemaInstall;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code install}: creates, as the administrator who runs it, every object fenced needs, with the first connect's
 * own code, and grants the application's role what the runtime needs. The least-privilege set-up in one step: the
 * application's role then needs no CREATE, no TEMP, and owns nothing (docs/least-privilege.md).
 */
final class InstallCommand implements Command {

    static final Option GRANT_TO =
            Option.of("--grant-to", "ROLE", "grant ROLE exactly what fenced's runtime needs (docs/least-privilege.md)");

    static final Option PRINT =
            Option.of("--print", "", "write the SQL instead of running it (for Flyway, Liquibase); changes nothing");

    static final Option EVENT_TRIGGER = Option.of(
            "--event-trigger",
            "",
            "also add an event trigger that tells running applications of DDL at once (needs a superuser)");

    @Override
    public String name() {
        return "install";
    }

    @Override
    public String summary() {
        return "create fenced's objects as an administrator and grant the application's role what it needs";
    }

    @Override
    public String description() {
        return "fenced install --url URL --tables LIST [--grant-to ROLE] [--print] [--event-trigger]\n\n"
                + "Run as an administrator (the protected tables' owner, or a superuser): creates what fenced's first\n"
                + "connect and first lease grant would create, with the same code, every name schema-qualified and\n"
                + "every function with search_path pg_catalog, pg_temp: the tombstone table, its key and check\n"
                + "functions and the check trigger on each protected table, the token-domain registry (recording each\n"
                + "table's token domain), the lease table and its token sequence. Objects already in place are kept.\n"
                + "--grant-to ROLE then grants ROLE exactly what the runtime needs (docs/least-privilege.md), so the\n"
                + "application's role needs no CREATE, no TEMP and owns nothing. --print writes the SQL to standard\n"
                + "output instead (the install runs in a transaction that is rolled back), for a migration tool.\n"
                + "--event-trigger (a superuser only) also adds event triggers on ddl_command_end and sql_drop that\n"
                + "NOTIFY fenced_ddl: a running application then reads the catalog again after any session's DDL,\n"
                + "instead of at its next periodic read (fenced.catalogRefresh).\n"
                + "Exit status 0 when installed, 1 when the database refused (a missing fence column, no privilege),\n"
                + "2 on bad usage or --event-trigger without a superuser.";
    }

    @Override
    public List<Option> options() {
        return List.of(GRANT_TO, PRINT, EVENT_TRIGGER);
    }

    @Override
    public int run(Invocation inv) throws CliException {
        if (!inv.args().arguments().isEmpty()) {
            throw CliException.usage("install takes no arguments, but got '"
                    + inv.args().arguments().get(0) + "'");
        }
        FencedConfig config = inv.configWithTables();
        String role = inv.args().value(GRANT_TO);
        if (role != null && role.isBlank()) {
            throw CliException.usage("--grant-to needs a role name");
        }
        boolean print = inv.args().has(PRINT);
        boolean eventTrigger = inv.args().has(EVENT_TRIGGER);
        Connection c = inv.connectForWrites();
        try {
            if (role != null && !SchemaInstall.roleExists(c, role)) {
                throw CliException.usage("--grant-to " + role + ": no such role (names are exact: no folding)");
            }
            if (eventTrigger && !DdlNotices.superuser(c)) {
                throw CliException.prerequisite("install --event-trigger needs a superuser (PostgreSQL lets only"
                        + " superusers create event triggers), and this session's role is not one: run it as a"
                        + " superuser, or without --event-trigger (DDL run by others is then learned at the next"
                        + " catalog read, fenced.catalogRefresh); nothing was installed");
            }
            if (print) {
                return print(inv.out(), c, config, role, eventTrigger);
            }
            SchemaInstall.Installed done = SchemaInstall.install(c, config, role, eventTrigger);
            report(inv.out(), inv.requiredUrl(), done, role);
            return CliException.OK;
        } catch (FencingException e) {
            throw CliException.action(Database.oneLine(e));
        } catch (SQLException e) {
            throw CliException.action("install failed: " + Database.oneLine(e));
        } finally {
            Database.close(c);
        }
    }

    private static int print(
            PrintStream out, Connection c, FencedConfig config, @Nullable String role, boolean eventTrigger)
            throws SQLException {
        SqlRecorder recorder = new SqlRecorder();
        c.setAutoCommit(false);
        try {
            SchemaInstall.install(recorder.wrap(c), config, role, eventTrigger);
        } finally {
            c.rollback();
        }
        out.println("-- fenced install: the objects fenced needs that this database lacks"
                + (role == null ? "" : ", and the grants to " + role));
        out.println(
                eventTrigger
                        ? "-- run by a superuser (it creates event triggers), in one transaction"
                        : "-- run by an administrator (the protected tables' owner or a superuser), in one transaction");
        out.println("BEGIN;");
        out.println("SELECT pg_catalog.pg_advisory_xact_lock(" + dev.fenced.internal.pg.SchemaLock.KEY + ");");
        for (String sql : recorder.statements()) {
            out.println(sql.endsWith(";") ? sql : sql + ";");
        }
        out.println("COMMIT;");
        return CliException.OK;
    }

    private static void report(PrintStream out, String url, SchemaInstall.Installed done, @Nullable String role) {
        out.println("fenced install " + ConnectionFactory.masked(url));
        if (done.tombstones() != null) {
            out.println("  tombstone table " + done.tombstones() + ", its key and check functions, the check triggers");
        }
        out.println("  token-domain registry " + done.registry());
        out.println("  lease table " + done.lease().table() + " and sequence "
                + done.lease().sequence());
        if (done.ddlNotices() != null) {
            out.println("  event triggers " + DdlNotices.ON_DDL + " (ddl_command_end) and " + DdlNotices.ON_DROP
                    + " (sql_drop), function " + done.ddlNotices() + ": NOTIFY " + DdlNotices.CHANNEL + " on DDL");
        }
        if (role != null) {
            out.println("granted to " + role + ":");
            done.grants().forEach(g -> out.println("  " + g));
        }
        out.println("installed");
    }
}
