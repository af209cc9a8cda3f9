package dev.fenced.internal.pg;

import dev.fenced.FencingException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Where an unqualified name of one of fenced's own tables lives, decided once so that nothing fenced sends later
 * depends on a session's search_path (issue 24). The name is looked up as the session would, but never in a temp
 * schema: {@code CREATE TEMP TABLE fenced_lease (...)} or {@code CREATE TEMP TABLE fenced_tombstone (...)}, which
 * need only TEMP, would otherwise come first and take the real table's place. The answer is the first schema of the
 * search_path that has a relation of that name, else the first one (where the table would be created).
 */
public final class SearchPath {

    private SearchPath() {}

    /**
     * The schema of {@code table} (unqualified, as stored in the catalog) on {@code c}; {@code setting} is the
     * configuration key that names the table, for the error when no schema will do.
     *
     * @throws FencingException when the search_path names no schema but a temp one
     */
    public static String schemaOf(Connection c, String table, String setting) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname FROM pg_catalog.unnest("
                + "pg_catalog.current_schemas(false)) WITH ORDINALITY AS s (name, pos) JOIN pg_catalog.pg_namespace n"
                + " ON n.nspname OPERATOR(pg_catalog.=) s.name WHERE n.oid OPERATOR(pg_catalog.<>)"
                + " pg_catalog.pg_my_temp_schema() ORDER BY EXISTS (SELECT 1 FROM pg_catalog.pg_class r WHERE"
                + " r.relnamespace OPERATOR(pg_catalog.=) n.oid AND r.relname OPERATOR(pg_catalog.=) ?) DESC, s.pos"
                + " LIMIT 1")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new FencingException(
                            "fenced: the table " + table + " (" + setting
                                    + ") has no schema to live in (the search_path"
                                    + " names no schema but a temp one); set " + setting + " to a qualified name",
                            FencingException.SCHEMA);
                }
                return rs.getString(1);
            }
        }
    }
}
