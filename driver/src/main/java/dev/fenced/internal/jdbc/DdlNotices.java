package dev.fenced.internal.jdbc;

import dev.fenced.internal.config.TableName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The database side of learning schema changes at once ({@code install --event-trigger}): an event trigger on
 * {@code ddl_command_end} and one on {@code sql_drop}, both running one function that sends a NOTIFY on
 * {@link #CHANNEL} with the command tag as payload. Any session's committed DDL then reaches a runtime that
 * LISTENs ({@link DdlListener}), which marks its catalog read out of date. Only a superuser may create event
 * triggers; the runtime only looks for them.
 */
public final class DdlNotices {

    /** The channel the event trigger notifies and the runtime listens on. */
    public static final String CHANNEL = "fenced_ddl";

    /** The function both triggers run, created beside the token-domain registry. */
    public static final String FUNCTION = "fenced_ddl_notify";

    /** The trigger on {@code ddl_command_end} (every DDL command), which the runtime looks for. */
    public static final String ON_DDL = "fenced_ddl_notify";

    /** The trigger on {@code sql_drop}: the same notice (same payload, so one per transaction) for drops. */
    public static final String ON_DROP = "fenced_ddl_drop_notify";

    private DdlNotices() {}

    /**
     * Creates what is missing of the function (in {@code schema}) and the two event triggers; triggers already in
     * place are kept (event triggers have no {@code CREATE OR REPLACE}). The caller checked that the session is a
     * superuser.
     */
    public static void install(Connection c, String schema) throws SQLException {
        TableName function = new TableName(schema, FUNCTION);
        List<String> present = present(c);
        List<String> sql = new ArrayList<>();
        sql.add("CREATE OR REPLACE FUNCTION " + function + "() RETURNS pg_catalog.event_trigger LANGUAGE plpgsql "
                + TombstoneSchema.FIXED_SEARCH_PATH + " AS "
                + TombstoneSchema.dollarQuoted(
                        "\nBEGIN\n  PERFORM pg_catalog.pg_notify('" + CHANNEL + "', tg_tag);\nEND\n"));
        if (!present.contains(ON_DDL)) {
            sql.add("CREATE EVENT TRIGGER " + ON_DDL + " ON ddl_command_end EXECUTE FUNCTION " + function + "()");
        }
        if (!present.contains(ON_DROP)) {
            sql.add("CREATE EVENT TRIGGER " + ON_DROP + " ON sql_drop EXECUTE FUNCTION " + function + "()");
        }
        try (Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    /** True when the session's role is a superuser, the only kind that may create an event trigger. */
    public static boolean superuser(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_catalog.pg_roles"
                        + " WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** True when the trigger on {@code ddl_command_end} is in place and enabled: then a runtime listens. */
    static boolean installed(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_event_trigger"
                + " WHERE evtname OPERATOR(pg_catalog.=) ? AND evtenabled OPERATOR(pg_catalog.<>) 'D'")) {
            ps.setString(1, ON_DDL);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static List<String> present(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT evtname FROM pg_catalog.pg_event_trigger WHERE evtname OPERATOR(pg_catalog.=) ANY (?::pg_catalog.name[])")) {
            ps.setArray(1, c.createArrayOf("text", new String[] {ON_DDL, ON_DROP}));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
