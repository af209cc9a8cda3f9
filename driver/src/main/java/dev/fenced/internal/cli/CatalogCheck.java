package dev.fenced.internal.cli;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.jdbc.CatalogFacts;
import dev.fenced.internal.jdbc.Relation;
import dev.fenced.internal.sql.Tombstones;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code check}'s reading of the catalog, table by table: the fence column (by the driver's own rule, through
 * {@link CatalogFacts}), the partitions, children and parents that share the table's rows, and every way a
 * write reaches the rows without passing through the driver's rewriting: triggers and rules on the table,
 * functions whose body names it, foreign keys whose cascading actions come from unprotected tables.
 */
final class CatalogCheck {

    private CatalogCheck() {}

    static List<TableCheck> tables(Connection c, FencedConfig config) throws SQLException {
        List<TableCheck> out = new ArrayList<>();
        Set<Long> protectedOids = new HashSet<>();
        List<List<Relation>> found = new ArrayList<>();
        for (ProtectedTable t : config.tables()) {
            List<Relation> rs = t.mode() == FencingMode.OFF ? List.of() : CatalogFacts.relationsNamed(c, t.name());
            found.add(rs);
            for (Relation r : rs) {
                protectedOids.add(r.oid());
                for (Kin k : kin(c, r.oid())) {
                    protectedOids.add(k.oid);
                }
            }
        }
        for (int i = 0; i < config.tables().size(); i++) {
            ProtectedTable t = config.tables().get(i);
            TableCheck check = new TableCheck(t);
            out.add(check);
            if (t.mode() == FencingMode.OFF) {
                check.add(Finding.info("mode off: fenced leaves its statements alone"));
                continue;
            }
            List<Relation> relations = found.get(i);
            if (relations.isEmpty()) {
                check.add(Finding.missing(
                        "unknown table: " + t.displayName() + " matches no table in this database"
                                + " (check the name in fenced.tables, or the database in --url)",
                        null));
                continue;
            }
            for (Relation r : relations) {
                relation(c, t, r, check, protectedOids);
                if (!r.isView()) {
                    tokenDomain(c, config, t, r, check);
                }
            }
            functionsNaming(c, t, check);
        }
        return out;
    }

    /**
     * The table's token domain against the database's record of it: another recorded domain would fail every
     * connect with FN012 (two token sources writing one table), so it blocks; none recorded yet is said.
     */
    private static void tokenDomain(Connection c, FencedConfig config, ProtectedTable t, Relation r, TableCheck check)
            throws SQLException {
        String recorded = CatalogFacts.recordedTokenDomain(c, config.tokenDomainTable(), r);
        if (recorded == null) {
            check.add(Finding.info(r.display() + ": token domain " + t.tokenDomain() + " (not recorded yet in "
                    + config.tokenDomainTable() + "; the first connect records it)"));
        } else if (recorded.equals(t.tokenDomain())) {
            check.add(Finding.ok(r.display() + ": token domain " + t.tokenDomain() + ", as " + config.tokenDomainTable()
                    + " records"));
        } else {
            check.add(Finding.missing(
                    r.display() + ": " + config.tokenDomainTable() + " records token domain "
                            + recorded + " but this configuration gives " + t.tokenDomain()
                            + " (connecting fails with FN012):"
                            + " every writer of a table must use one token source",
                    null));
        }
    }

    private static void relation(Connection c, ProtectedTable t, Relation r, TableCheck check, Set<Long> protectedOids)
            throws SQLException {
        if (r.isView()) {
            check.add(Finding.missing(r.display() + " is a view; register the table it writes instead", null));
            return;
        }
        String type = CatalogFacts.columnType(c, r.oid(), t.column());
        String col = TableName.quote(t.column());
        if (type == null) {
            ColumnFix fix = new ColumnFix(r.schema(), r.name(), t.column(), null);
            check.fixes.add(fix);
            check.add(Finding.missing(r.display() + " has no fence column " + col, fix.sql()));
        } else if (!CatalogFacts.isFenceColumnType(type)) {
            ColumnFix fix = new ColumnFix(r.schema(), r.name(), t.column(), type);
            check.fixes.add(fix);
            check.add(Finding.missing(
                    "fence column " + col + " of " + r.display() + " is " + type
                            + "; it must be bigint (tokens outgrow smaller types)",
                    fix.sql()));
        } else {
            check.add(Finding.ok(r.display() + ": fence column " + col + " is bigint"));
        }
        for (Kin k : kin(c, r.oid())) {
            boolean hasColumn = CatalogFacts.columnType(c, k.oid, t.column()) != null;
            if (hasColumn) {
                check.add(Finding.info(k.role + " " + k.display + " shares its rows and is fenced with it"));
            } else {
                check.add(Finding.warn(k.role + " " + k.display + " shares its rows but has no column " + col
                        + ": fenced refuses writes to it"));
            }
        }
        unseenWrites(c, r.oid(), r.display(), check, protectedOids);
        for (Kin k : kin(c, r.oid())) {
            if (!k.role.equals("parent table")) {
                unseenWrites(c, k.oid, k.display, check, protectedOids); // a partition's trigger runs on the rows too
            }
        }
    }

    private static void unseenWrites(Connection c, long oid, String display, TableCheck check, Set<Long> protectedOids)
            throws SQLException {
        triggers(c, oid, display, check);
        rules(c, oid, display, check);
        cascades(c, oid, display, check, protectedOids);
    }

    private record Kin(long oid, String display, String role) {}

    /** Partitions and inheritance children (all levels down), and parents (all levels up). */
    private static List<Kin> kin(Connection c, long oid) throws SQLException {
        String sql =
                "WITH RECURSIVE down(oid) AS (SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent OPERATOR(pg_catalog.=) ?::pg_catalog.oid"
                        + " UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN down ON i.inhparent OPERATOR(pg_catalog.=) down.oid),"
                        + " up(oid) AS (SELECT i.inhparent FROM pg_catalog.pg_inherits i WHERE i.inhrelid OPERATOR(pg_catalog.=) ?::pg_catalog.oid"
                        + " UNION SELECT i.inhparent FROM pg_catalog.pg_inherits i JOIN up ON i.inhrelid OPERATOR(pg_catalog.=) up.oid)"
                        + " SELECT c.oid, c.oid::pg_catalog.regclass::pg_catalog.text, CASE WHEN c.relispartition THEN 'partition' ELSE 'child table' END"
                        + " FROM down JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) down.oid"
                        + " UNION ALL SELECT c.oid, c.oid::pg_catalog.regclass::pg_catalog.text, 'parent table'"
                        + " FROM up JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) up.oid ORDER BY 2";
        List<Kin> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, oid);
            ps.setLong(2, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Kin(rs.getLong(1), rs.getString(2), rs.getString(3)));
                }
            }
        }
        return out;
    }

    private static void triggers(Connection c, long oid, String display, TableCheck check) throws SQLException {
        String sql = "SELECT t.tgname, t.tgfoid::pg_catalog.regprocedure::pg_catalog.text,"
                + " (t.tgtype OPERATOR(pg_catalog.&) 2) OPERATOR(pg_catalog.<>) 0 FROM pg_catalog.pg_trigger t"
                + " WHERE t.tgrelid OPERATOR(pg_catalog.=) ? AND NOT t.tgisinternal AND t.tgname OPERATOR(pg_catalog.<>) ? ORDER BY 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, oid);
            ps.setString(2, Tombstones.TRIGGER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    check.add(Finding.warn("trigger " + rs.getString(1) + " on " + display + " runs "
                            + rs.getString(2) + ": what it writes is not fenced"
                            + (rs.getBoolean(3)
                                    ? " (a BEFORE trigger can change the row after the token was set)"
                                    : "")));
                }
            }
        }
    }

    private static void rules(Connection c, long oid, String display, TableCheck check) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT r.rulename FROM pg_catalog.pg_rewrite r"
                        + " WHERE r.ev_class OPERATOR(pg_catalog.=) ? AND r.rulename OPERATOR(pg_catalog.<>) '_RETURN' ORDER BY 1")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    check.add(Finding.warn(
                            "rule " + rs.getString(1) + " on " + display + ": its actions run" + " unfenced"));
                }
            }
        }
    }

    /**
     * Foreign keys on the table whose ON DELETE / ON UPDATE action (CASCADE, SET NULL, SET DEFAULT) fires from a
     * write to an unprotected table: PostgreSQL changes this table's rows with no token.
     */
    private static void cascades(Connection c, long oid, String display, TableCheck check, Set<Long> protectedOids)
            throws SQLException {
        String sql = "SELECT con.conname, con.confrelid, con.confrelid::pg_catalog.regclass::pg_catalog.text,"
                + " con.confdeltype, con.confupdtype"
                + " FROM pg_catalog.pg_constraint con WHERE con.contype OPERATOR(pg_catalog.=) 'f' AND con.conrelid OPERATOR(pg_catalog.=) ?"
                + " AND (" + anyOf("con.confdeltype", "'c'", "'n'", "'d'") + " OR "
                + anyOf("con.confupdtype", "'c'", "'n'", "'d'") + ") ORDER BY 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (protectedOids.contains(rs.getLong(2))) {
                        continue; // the write that cascades is fenced itself
                    }
                    List<String> actions = new ArrayList<>();
                    action(actions, "DELETE", rs.getString(4));
                    action(actions, "UPDATE", rs.getString(5));
                    check.add(Finding.warn("foreign key " + rs.getString(1) + " of " + display + " references"
                            + " unprotected table " + rs.getString(3) + " " + String.join(" ", actions) + ": a write"
                            + " there changes rows of " + display + " with no token"));
                }
            }
        }
    }

    private static void action(List<String> out, String event, String code) {
        String what = switch (code) {
            case "c" -> "CASCADE";
            case "n" -> "SET NULL";
            case "d" -> "SET DEFAULT";
            default -> null;
        };
        if (what != null) {
            out.add("ON " + event + " " + what);
        }
    }

    /** Functions and procedures whose body names the table (as a word): their writes are not fenced. */
    private static void functionsNaming(Connection c, ProtectedTable t, TableCheck check) throws SQLException {
        String sql = "SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text, p.prokind,"
                + " (SELECT pg_catalog.string_agg(pg_catalog.concat(tg.tgname, ' on ', tg.tgrelid::pg_catalog.regclass),"
                + " ', ' ORDER BY tg.tgname)"
                + "  FROM pg_catalog.pg_trigger tg WHERE tg.tgfoid OPERATOR(pg_catalog.=) p.oid AND NOT tg.tgisinternal)"
                + " FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace"
                + " JOIN pg_catalog.pg_language l ON l.oid OPERATOR(pg_catalog.=) p.prolang"
                + " WHERE NOT " + anyOf("n.nspname", "'pg_catalog'", "'information_schema'")
                + " AND NOT " + anyOf("l.lanname", "'c'", "'internal'")
                + " AND p.prosrc OPERATOR(pg_catalog.~*) ? AND p.proname OPERATOR(pg_catalog.!~~) ? ORDER BY 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, "\\m" + regexQuote(t.name().name()) + "\\M");
            ps.setString(2, "fenced\\_tombstone%"); // fenced's own tombstone functions name protected tables
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String kind = "p".equals(rs.getString(2)) ? "procedure " : "function ";
                    String triggers = rs.getString(3);
                    check.add(Finding.warn(kind + rs.getString(1) + " names " + t.displayName() + " in its body"
                            + (triggers == null ? "" : " (run by trigger " + triggers + ")")
                            + ": what it writes there is not fenced"));
                }
            }
        }
    }

    /**
     * {@code column IN (values)} spelled with pg_catalog's equality, since a bare {@code IN} resolves its
     * {@code =} through the session's search_path.
     */
    private static String anyOf(String column, String... literals) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < literals.length; i++) {
            sb.append(i == 0 ? "" : " OR ")
                    .append(column)
                    .append(" OPERATOR(pg_catalog.=) ")
                    .append(literals[i]);
        }
        return sb.append(')').toString();
    }

    private static String regexQuote(String name) {
        return name.replaceAll("([\\\\.^$|?*+()\\[\\]{}])", "\\\\$1");
    }

    /** Views and rules that reach protected rows: the driver refuses writes through them. */
    static List<Finding> reaching(Connection c, FencedConfig config) throws SQLException {
        List<Finding> out = new ArrayList<>();
        for (Map.Entry<TableName, String> e :
                CatalogFacts.targets(c, config, config.tables()).indirect().entrySet()) {
            out.add(Finding.info(e.getValue() + ": fenced refuses writes to " + e.getKey()));
        }
        return out;
    }
}
