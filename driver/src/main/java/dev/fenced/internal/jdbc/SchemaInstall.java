package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.lease.LeaseSchema;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.internal.sql.Tombstones;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What {@code install} does: creates, as the administrator who runs it, every object fenced needs, through the very
 * code the first connect and the first lease grant run (the catalog read that creates the tombstone table, its key
 * and check functions and triggers and records the token domains; the lease store's script), every name
 * schema-qualified; then grants a role exactly what the runtime needs, so that role needs no CREATE, no TEMP and
 * owns nothing.
 */
public final class SchemaInstall {

    /**
     * What was installed, schema-qualified; {@code grants} are the statements run for the role (empty without);
     * {@code ddlNotices} the event trigger's function (null without {@code --event-trigger}).
     */
    public record Installed(
            @Nullable TableName tombstones,
            TableName registry,
            LeaseTableName lease,
            List<String> grants,
            @Nullable TableName ddlNotices) {}

    private SchemaInstall() {}

    /**
     * Creates what is missing (a database that has it all is left as it is) and, with {@code role} not null, grants
     * it the runtime's privileges (see {@link #grants}). With {@code eventTrigger}, also the event trigger that
     * tells runtimes of DDL at once ({@link DdlNotices}), beside the token-domain registry; the caller checked that
     * the session is a superuser. The runtime's role needs no privilege for it (it reads the catalog, and LISTEN
     * needs none).
     */
    public static Installed install(Connection c, FencedConfig config, @Nullable String role, boolean eventTrigger)
            throws SQLException {
        CatalogInspector.inspect(c, CatalogRead.forInstall(config));
        TableName tombstones = config.tombstoneTable() == null
                ? null
                : TombstoneSchema.qualified(c, config.tombstoneTable(), FencedProperty.TOMBSTONE_TABLE);
        TableName registry = TombstoneSchema.qualified(c, config.tokenDomainTable(), FencedProperty.TOKEN_DOMAIN_TABLE);
        LeaseTableName lease = LeaseSchema.qualified(c, LeaseTableName.parse(config.leaseTable()));
        LeaseSchema.install(c, lease);
        List<String> grants = role == null ? List.of() : grants(tombstones, registry, lease, role);
        try (Statement s = c.createStatement()) {
            for (String grant : grants) {
                s.execute(grant);
            }
        }
        TableName ddlNotices = null;
        if (eventTrigger) {
            String schema = TombstoneSchema.schemaOf(registry);
            DdlNotices.install(c, schema);
            ddlNotices = new TableName(schema, DdlNotices.FUNCTION);
        }
        return new Installed(tombstones, registry, lease, grants, ddlNotices);
    }

    /**
     * Exactly what the runtime needs, nothing more (docs/least-privilege.md lists it): USAGE on the schemas of
     * fenced's objects; on the tombstone table SELECT and INSERT (a DELETE records, the check reads), UPDATE (a
     * second DELETE of a key keeps the newer token) and DELETE (the check's claim under REPEATABLE READ is taken
     * back); EXECUTE on the key and check functions; SELECT on the token-domain registry (install recorded the
     * domains); SELECT, INSERT, UPDATE on the lease table and USAGE, SELECT on its sequence (nextval, and the
     * check that the sequence is ahead of the table). The protected tables' own privileges are the application's,
     * granted by its DBA as before.
     */
    static List<String> grants(@Nullable TableName tombstones, TableName registry, LeaseTableName lease, String role) {
        String r = TableName.quote(role);
        Set<String> schemas = new LinkedHashSet<>();
        if (tombstones != null) {
            schemas.add(tombstones.schema());
        }
        schemas.add(registry.schema());
        schemas.add(lease.schemaName());
        List<String> out = new ArrayList<>();
        for (String schema : schemas) {
            out.add("GRANT USAGE ON SCHEMA " + TableName.quote(schema) + " TO " + r);
        }
        if (tombstones != null) {
            out.add("GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE " + tombstones + " TO " + r);
            out.add("GRANT EXECUTE ON FUNCTION " + Tombstones.keyFunction(tombstones)
                    + "(anyelement, pg_catalog.text[]), " + TombstoneSchema.function(tombstones) + "() TO " + r);
        }
        out.add("GRANT SELECT ON TABLE " + registry + " TO " + r);
        out.add("GRANT SELECT, INSERT, UPDATE ON TABLE " + lease.table() + " TO " + r);
        out.add("GRANT USAGE, SELECT ON SEQUENCE " + lease.sequence() + " TO " + r);
        return out;
    }

    /** True when {@code role} exists. */
    public static boolean roleExists(Connection c, String role) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT 1 FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) ?")) {
            ps.setString(1, role);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
