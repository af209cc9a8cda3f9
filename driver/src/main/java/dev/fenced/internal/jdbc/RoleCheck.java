package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.FencingMode;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.lease.LeaseSchema;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.internal.sql.Tombstones;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the session's role is an administrator of a protected table (issue 24): a role that can change the
 * table's schema (rename it, retype or drop its fence column, replace its triggers) or shadow the names fenced's SQL
 * uses can defeat any rewriting, and that is PostgreSQL's privilege system's job. Found at first connect
 * ({@code fenced.roleCheck}) and by {@code check}, which also names the rights the role lacks to work. Every query
 * here names its functions and operators with {@code pg_catalog}: it runs before anything else, in whatever
 * search_path the session has.
 */
public final class RoleCheck {

    private static final System.Logger LOG = System.getLogger("dev.fenced.jdbc");

    /** A privilege the role has that it should not, and the SQL that takes it away. */
    public record Excess(String privilege, String fix) {}

    /** A right the role lacks: {@code blocking} when fenced cannot work without it. */
    public record Gap(boolean blocking, String text, String fix) {}

    private RoleCheck() {}

    /** The session's role ({@code current_user}). */
    public static String role(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.current_user()::pg_catalog.text");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** At first connect: logs once (warn) or fails the connect (refuse) when the role is an administrator. */
    static void atConnect(FencedConfig config, Connection c) throws SQLException {
        String mode = config.roleCheck().toLowerCase(Locale.ROOT);
        if (mode.equals("off") || config.inactive()) {
            return;
        }
        List<Excess> excess = excess(c, protectedRelations(c, config));
        if (excess.isEmpty()) {
            return;
        }
        String message = message(role(c), excess);
        if (mode.equals("refuse")) {
            throw new FencingException(message, FencingException.SCHEMA);
        }
        LOG.log(System.Logger.Level.WARNING, message);
    }

    static String message(String role, List<Excess> excess) {
        StringBuilder b = new StringBuilder("fenced: the session role ")
                .append(role)
                .append(" can change a protected table's schema or shadow the names fenced uses, so it is an")
                .append(" administrator and rewriting alone cannot fence it (docs/least-privilege.md):");
        for (Excess e : excess) {
            b.append(' ')
                    .append(e.privilege())
                    .append(" (fix: ")
                    .append(e.fix())
                    .append(");");
        }
        b.append(" run the application as a role without these (fenced install --grant-to ROLE grants what fenced")
                .append(" needs), or set ")
                .append(FencedProperty.ROLE_CHECK.key())
                .append("=off");
        return b.toString();
    }

    /** The tables and partitions the configuration protects, as the first connect finds them. */
    public static List<Relation> protectedRelations(Connection c, FencedConfig config) throws SQLException {
        List<Relation> out = new ArrayList<>();
        for (ProtectedTable t : config.tables()) {
            if (t.mode() != FencingMode.OFF) {
                for (Relation r : CatalogInspector.relationsNamed(c, t.name())) {
                    if (!r.isView()) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }

    /** The privileges the role has that let it change a protected table's schema or shadow fenced's names. */
    public static List<Excess> excess(Connection c, List<Relation> tables) throws SQLException {
        List<Excess> out = new ArrayList<>();
        String role;
        boolean superuser;
        boolean temp;
        String database;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.current_user()::pg_catalog.text, r.rolsuper,"
                        + " pg_catalog.has_database_privilege(pg_catalog.current_database(), 'TEMP'),"
                        + " pg_catalog.current_database()::pg_catalog.text FROM pg_catalog.pg_roles r"
                        + " WHERE r.rolname OPERATOR(pg_catalog.=) pg_catalog.current_user()");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            role = rs.getString(1);
            superuser = rs.getBoolean(2);
            temp = rs.getBoolean(3);
            database = rs.getString(4);
        }
        String r = TableName.quote(role);
        if (superuser) {
            out.add(new Excess("it is a superuser", "connect as a role that is not; ALTER ROLE " + r + " NOSUPERUSER"));
        }
        for (Relation t : tables) {
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT pg_catalog.pg_get_userbyid(c.relowner)::pg_catalog.text,"
                            + " c.relowner OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_roles WHERE rolname"
                            + " OPERATOR(pg_catalog.=) pg_catalog.current_user())"
                            + " FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) ?"
                            + " AND pg_catalog.pg_has_role(pg_catalog.current_user(), c.relowner, 'MEMBER')")) {
                ps.setLong(1, t.oid());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && !superuser) {
                        String owner = rs.getString(1);
                        out.add(new Excess(
                                rs.getBoolean(2)
                                        ? "it owns " + t.display()
                                        : "it is a member of " + owner + ", which owns " + t.display(),
                                rs.getBoolean(2)
                                        ? "ALTER TABLE " + t.display() + " OWNER TO <an administrator role>; GRANT"
                                                + " SELECT, INSERT, UPDATE, DELETE ON " + t.display() + " TO " + r
                                        : "REVOKE " + TableName.quote(owner) + " FROM " + r));
                    }
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname::pg_catalog.text FROM pg_catalog.unnest("
                        + "pg_catalog.current_schemas(false)) WITH ORDINALITY AS s (name, pos) JOIN pg_catalog.pg_namespace n"
                        + " ON n.nspname OPERATOR(pg_catalog.=) s.name WHERE n.oid OPERATOR(pg_catalog.<>)"
                        + " pg_catalog.pg_my_temp_schema() AND pg_catalog.has_schema_privilege(n.oid, 'CREATE')"
                        + " ORDER BY s.pos");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next() && !superuser) {
                String schema = TableName.quote(rs.getString(1));
                out.add(new Excess(
                        "CREATE on schema " + schema + ", which is in its search_path (operators, functions and"
                                + " tables created there shadow names)",
                        "REVOKE CREATE ON SCHEMA " + schema + " FROM PUBLIC, " + r));
            }
        }
        if (temp && !superuser) {
            out.add(new Excess(
                    "TEMP on database " + database + " (temp tables come first in every search_path)",
                    "REVOKE TEMP ON DATABASE " + TableName.quote(database) + " FROM PUBLIC, " + r));
        }
        return out;
    }

    /**
     * The rights the role lacks to work: to write each protected table, and to use fenced's objects (the
     * tombstone table and its functions, the token-domain registry, the lease store), which must exist (the role
     * cannot create them without CREATE, which it should not have: {@code fenced install}).
     */
    public static List<Gap> lacking(Connection c, FencedConfig config, List<Relation> tables) throws SQLException {
        List<Gap> out = new ArrayList<>();
        String r = TableName.quote(role(c));
        String install = "fenced install --url URL --tables ... --grant-to " + role(c) + " (as an administrator)";
        for (Relation t : tables) {
            Map<String, Boolean> has = privileges(c, t.display(), "SELECT", "INSERT", "UPDATE", "DELETE");
            List<String> without = new ArrayList<>();
            has.forEach((p, ok) -> {
                if (!ok) {
                    without.add(p);
                }
            });
            if (!without.isEmpty()) {
                boolean cannotWrite =
                        without.contains("SELECT") || without.containsAll(List.of("INSERT", "UPDATE", "DELETE"));
                out.add(new Gap(
                        cannotWrite,
                        "it lacks " + String.join(", ", without) + " on " + t.display()
                                + (cannotWrite
                                        ? ": it cannot write the table fenced (a fenced write reads the fence column)"
                                        : ""),
                        "GRANT " + String.join(", ", without) + " ON " + t.display() + " TO " + r));
            }
        }
        if (config.tombstoneTable() != null) {
            TableName tomb = TombstoneSchema.qualified(c, config.tombstoneTable(), FencedProperty.TOMBSTONE_TABLE);
            if (!exists(c, tomb.toString())) {
                out.add(new Gap(
                        !canCreateIn(c, TombstoneSchema.schemaOf(tomb)),
                        "the tombstone table " + tomb + " does not exist (the first connect creates it only with"
                                + " CREATE on " + tomb.schema() + ")",
                        install));
            } else {
                table(out, c, tomb, r, true, "SELECT", "INSERT", "UPDATE", "DELETE");
                for (String f : List.of(
                        Tombstones.keyFunction(tomb) + "(anyelement, pg_catalog.text[])",
                        TombstoneSchema.function(tomb) + "()")) {
                    if (!functionUsable(c, f)) {
                        out.add(new Gap(true, "it cannot execute " + f + " (missing, or no EXECUTE)", install));
                    }
                }
                for (Relation t : tables) {
                    if (!hasTombstoneTrigger(c, t.oid())) {
                        out.add(new Gap(
                                !ownsOrSuper(c, t.oid()),
                                "the tombstone check trigger on " + t.display()
                                        + " does not exist; only the table's owner can create it",
                                install));
                    }
                }
            }
        }
        TableName registry = TombstoneSchema.qualified(c, config.tokenDomainTable(), FencedProperty.TOKEN_DOMAIN_TABLE);
        if (!exists(c, registry.toString())) {
            out.add(new Gap(
                    !canCreateIn(c, TombstoneSchema.schemaOf(registry)),
                    "the token-domain registry " + registry + " does not exist (the first connect creates it only"
                            + " with CREATE on " + registry.schema() + ")",
                    install));
        } else {
            table(out, c, registry, r, true, "SELECT");
        }
        LeaseTableName lease = LeaseSchema.qualified(c, LeaseTableName.parse(config.leaseTable()));
        if (!exists(c, lease.table())) {
            out.add(new Gap(false, "the lease table " + lease + " does not exist (needed to take leases)", install));
        } else {
            Map<String, Boolean> has = privileges(c, lease.table(), "SELECT", "INSERT", "UPDATE");
            if (has.containsValue(false)) {
                out.add(new Gap(
                        false,
                        "it lacks privileges on the lease table " + lease + " (needed to take leases)",
                        "GRANT SELECT, INSERT, UPDATE ON " + lease + " TO " + r));
            }
        }
        return out;
    }

    private static void table(
            List<Gap> out, Connection c, TableName t, String r, boolean blocking, String... privileges)
            throws SQLException {
        Map<String, Boolean> has = privileges(c, t.toString(), privileges);
        if (has.containsValue(false)) {
            out.add(new Gap(
                    blocking,
                    "it lacks "
                            + String.join(
                                    ", ",
                                    has.entrySet().stream()
                                            .filter(e -> !e.getValue())
                                            .map(Map.Entry::getKey)
                                            .toList())
                            + " on fenced's " + t,
                    "GRANT " + String.join(", ", privileges) + " ON " + t + " TO " + r));
        }
    }

    private static Map<String, Boolean> privileges(Connection c, String table, String... privileges)
            throws SQLException {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (String p : privileges) {
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT pg_catalog.has_table_privilege(pg_catalog.to_regclass(?), ?)")) {
                ps.setString(1, table);
                ps.setString(2, p);
                try (ResultSet rs = ps.executeQuery()) {
                    out.put(p, rs.next() && rs.getBoolean(1));
                }
            }
        }
        return out;
    }

    private static boolean canCreateIn(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.has_schema_privilege(n.oid, 'CREATE')"
                + " FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static boolean ownsOrSuper(Connection c, long oid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_has_role(pg_catalog.current_user(),"
                + " c.relowner, 'USAGE') FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) ?")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static boolean exists(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.to_regclass(?) IS NOT NULL")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static boolean functionUsable(Connection c, String signature) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.to_regprocedure(?) IS NOT NULL AND"
                + " pg_catalog.has_function_privilege(pg_catalog.to_regprocedure(?), 'EXECUTE')")) {
            ps.setString(1, signature);
            ps.setString(2, signature);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static boolean hasTombstoneTrigger(Connection c, long oid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid"
                + " OPERATOR(pg_catalog.=) ? AND tgname OPERATOR(pg_catalog.=) ? UNION ALL SELECT 1 FROM"
                + " pg_catalog.pg_class WHERE oid OPERATOR(pg_catalog.=) ? AND relispartition"
                // a table without a primary key has no tombstones, so no check
                + " UNION ALL SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid"
                + " OPERATOR(pg_catalog.=) ? AND contype OPERATOR(pg_catalog.=) 'p')")) {
            ps.setLong(1, oid);
            ps.setString(2, TombstoneSchema.TRIGGER);
            ps.setLong(3, oid);
            ps.setLong(4, oid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
