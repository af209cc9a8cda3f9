package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.TableShape;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads the catalog once per configuration and database, at first connect: every registered table must
 * have its fence column with an integer type (else the connect fails naming table and column); the
 * partitions, inheritance children and parents of a protected table are protected too (a write to any
 * of them reaches its rows); views that read a protected table are learned so writes through them are
 * refused; volatile function names are learned for the DELETE check.
 */
final class CatalogInspector {

    private static final System.Logger LOG = Logs.get("dev.fenced.jdbc");

    /** Tokens are bigints: a smallint column overflows at token 32,768, an integer one past 2^31. */
    static final Set<String> INTEGER_TYPES = Set.of("bigint");

    private CatalogInspector() {}

    /**
     * Reads the catalog as {@code read} says (see {@link CatalogRead}'s factories for who needs what): the
     * registered tables and their fence columns, their partitions, children and parents, the views and rules
     * that reach them, the column lists and keys for tombstones, and the database's function names.
     */
    static FencingTargets inspect(Connection c, CatalogRead read) throws SQLException {
        boolean lenient = read.lenient();
        TableName tombstones = read.tombstones() == null
                ? null
                : TombstoneSchema.qualified(c, read.tombstones(), FencedProperty.TOMBSTONE_TABLE);
        Shapes shapes = new Shapes();
        // each protected relation's token domain, by oid, for the registry
        Map<Long, TokenDomainRegistry.Claim> claims = new LinkedHashMap<>();
        List<ProtectedTable> registered =
                read.tables().stream().filter(t -> t.mode() != FencingMode.OFF).toList();
        List<ProtectedTable> tables = new ArrayList<>();
        Map<TableName, String> indirect = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        List<Long> protectedOids = new ArrayList<>();
        List<Long> reachingOids = new ArrayList<>();
        // the entry each protected relation is fenced by: rows shared through inheritance take the strictest
        // mode of every table they belong to, and one fence column
        Map<Long, ProtectedTable> fencedAs = new java.util.HashMap<>();
        for (ProtectedTable t : registered) {
            tables.add(t);
            List<Relation> found = relationsNamed(c, t.name());
            if (found.isEmpty()) {
                if (read.failOnMissing() && t.mode() == FencingMode.ENFORCE) {
                    problems.add("protected table " + t.displayName() + " matches no table (a typo would leave the"
                            + " real one unprotected; set " + dev.fenced.FencedProperty.MISSING_TABLES.key()
                            + "=warn to connect before it exists)");
                    continue;
                }
                LOG.log(
                        System.Logger.Level.WARNING,
                        "fenced: protected table {0} does not exist (yet); writes to it" + " will be fenced by name",
                        t.displayName());
                continue;
            }
            for (Relation r : found) {
                if (r.isView()) {
                    problems.add(r.display() + " is a view; register the table it writes instead");
                    continue;
                }
                String type = columnType(c, r.oid(), t.column());
                if (type == null) {
                    problems.add("table " + r.display() + " has no column " + TableName.quote(t.column())
                            + " (add it: ALTER TABLE " + r.display() + " ADD COLUMN " + TableName.quote(t.column())
                            + " bigint)");
                    continue;
                }
                if (!INTEGER_TYPES.contains(type)) {
                    problems.add("column " + TableName.quote(t.column()) + " of table " + r.display() + " is " + type
                            + "; a fence column must be bigint");
                    continue;
                }
                seen.add(r.oid());
                protectedOids.add(r.oid());
                claims.putIfAbsent(
                        r.oid(), new TokenDomainRegistry.Claim(r.schema(), r.name(), t.tokenDomain(), t.displayName()));
                shapes.registered(c, t, r.oid(), r.name(), r.display(), tombstones != null);
                fencedAs.merge(
                        r.oid(), t, (a, b) -> b.mode().ordinal() < a.mode().ordinal() ? b : a);
            }
        }
        if (!problems.isEmpty()) {
            String message = "fenced: protected tables are not ready: " + String.join("; ", problems);
            if (!lenient) {
                throw new FencingException(message, FencingException.SCHEMA);
            }
            LOG.log(System.Logger.Level.WARNING, message);
        }
        // Partitions and inheritance children share the parent's columns; parents see the children's rows.
        List<String> conflicts = new ArrayList<>();
        List<String> domainConflicts = new ArrayList<>(); // never lenient: two token sources would meet on a row
        for (ProtectedTable t : registered) {
            for (Relation r : relationsNamed(c, t.name())) {
                if (!seen.contains(r.oid()) || r.isPlainView()) {
                    continue;
                }
                for (Relation kin : inheritanceKin(c, r.oid())) {
                    ProtectedTable known = fencedAs.get(kin.oid());
                    if (known != null) {
                        if (!known.tokenDomain().equals(t.tokenDomain())) {
                            domainConflicts.add(kin.display() + " has token domain " + known.tokenDomain()
                                    + " but shares rows"
                                    + " with protected table " + t.displayName() + " of token domain " + t.tokenDomain()
                                    + " (tokens of two sources are unrelated numbers); give both one domain");
                        } else if (!known.column().equals(t.column())) {
                            conflicts.add(kin.display() + " is fenced on column " + known.column() + " but shares rows"
                                    + " with protected table " + t.displayName() + " fenced on " + t.column()
                                    + " (a token written through one would not stop a stale write through the other);"
                                    + " use one fence column for both");
                        } else if (t.mode().ordinal() < known.mode().ordinal()) {
                            // registered in a weaker mode of its own: writes to it reach t's rows
                            ProtectedTable stricter =
                                    new ProtectedTable(kin.tableName(), t.column(), t.mode(), t.tokenDomain(), t);
                            tables.add(stricter);
                            fencedAs.put(kin.oid(), stricter);
                        }
                        continue;
                    }
                    if (!seen.add(kin.oid())) {
                        continue;
                    }
                    if (columnType(c, kin.oid(), t.column()) != null) {
                        ProtectedTable derived =
                                new ProtectedTable(kin.tableName(), t.column(), t.mode(), t.tokenDomain(), t);
                        tables.add(derived);
                        claims.putIfAbsent(
                                kin.oid(),
                                new TokenDomainRegistry.Claim(
                                        kin.schema(), kin.name(), t.tokenDomain(), t.displayName()));
                        fencedAs.put(kin.oid(), derived);
                        protectedOids.add(kin.oid());
                        shapes.kin(c, derived, t, kin.oid(), kin.display());
                    } else {
                        indirect.put(
                                kin.tableName(),
                                kin.display() + " shares rows with protected table " + t.displayName()
                                        + " (inheritance or partitioning) but has no column " + t.column());
                        // a view over this parent reads the protected child's rows too
                        reachingOids.add(kin.oid());
                    }
                }
            }
        }
        if (!conflicts.isEmpty()) {
            String message = "fenced: protected tables are not ready: " + String.join("; ", conflicts);
            if (!lenient) {
                throw new FencingException(message, FencingException.SCHEMA);
            }
            LOG.log(System.Logger.Level.WARNING, message);
        }
        if (!domainConflicts.isEmpty()) {
            throw new FencingException(
                    "fenced: protected tables are not ready: " + String.join("; ", domainConflicts),
                    FencingException.SCHEMA);
        }
        reachingOids.addAll(protectedOids);
        for (Relation view : viewsReading(c, reachingOids)) {
            indirect.putIfAbsent(
                    view.tableName(),
                    view.isPlainView()
                            ? "view " + view.display() + " reads a protected table"
                            : view.display() + " has a rule whose actions reach a protected table");
        }
        if (tombstones != null && read.createTombstones()) {
            TombstoneSchema.ensure(c, tombstones, shapes.guarded);
        }
        if (read.domainRegistry() != null) {
            // named with its schema as the tombstone table is: a temp table of the same name cannot stand in for it
            TokenDomainRegistry.claim(
                    c,
                    TombstoneSchema.qualified(c, read.domainRegistry(), FencedProperty.TOKEN_DOMAIN_TABLE),
                    List.copyOf(claims.values()));
        }
        return FencingTargets.fromCatalog(
                tables, indirect, volatileFunctions(c), shapes.byName(), tombstones, functionNames(c));
    }

    /**
     * Collects {@link TableShape}s: a registered name that matches several relations with different shapes
     * gets none (its column-less INSERTs are refused, and the name is not tombstoned).
     */
    private static final class Shapes {
        private final Map<TableName, TableShape> shapes = new LinkedHashMap<>();
        private final Set<TableName> ambiguous = new HashSet<>();
        final List<TombstoneSchema.Guarded> guarded = new ArrayList<>();

        void registered(Connection c, ProtectedTable t, long oid, String relname, String display, boolean tombstones)
                throws SQLException {
            List<String> key = TableShapes.primaryKey(c, oid);
            boolean tombstoned = tombstones && t.mode() == FencingMode.ENFORCE && !key.isEmpty();
            put(t.name(), new TableShape(TableShapes.liveColumns(c, oid), key, tombstoned ? relname : null));
            if (tombstoned) {
                guarded.add(new TombstoneSchema.Guarded(oid, display, relname, t.column(), key));
            }
        }

        /** A partition, child or parent shares the registered table's tombstones, keyed by its key columns. */
        void kin(Connection c, ProtectedTable derived, ProtectedTable root, long oid, String display)
                throws SQLException {
            TableShape rootShape = shapes.get(root.name());
            List<String> key = rootShape == null ? List.of() : rootShape.primaryKey();
            // tombstoned() is a label and a key: the label is null exactly when the root has no tombstones
            String label = rootShape != null && rootShape.tombstoned() ? rootShape.tombstoneLabel() : null;
            put(derived.name(), new TableShape(TableShapes.liveColumns(c, oid), key, label));
            if (label != null) {
                guarded.add(new TombstoneSchema.Guarded(oid, display, label, derived.column(), key));
            }
        }

        private void put(TableName name, TableShape shape) {
            if (ambiguous.contains(name)) {
                return;
            }
            TableShape before = shapes.putIfAbsent(name, shape);
            if (before != null && !before.equals(shape)) {
                shapes.remove(name);
                ambiguous.add(name);
            }
        }

        Map<TableName, TableShape> byName() {
            return shapes;
        }
    }

    /**
     * The name of every relation a write could target, as stored (exact case), outside the system
     * schemas, and the {@link #oidKey} of each: a write to a name not among them was made after this read and is
     * looked up first. The bare names alone would take {@code v} for a known {@code other.v} while the search
     * path resolves it to a {@code public.v} made since; the oids tell which relation a name resolves to.
     */
    static Set<String> relationNames(Connection c) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT c.relname, c.oid FROM pg_catalog.pg_class c"
                        + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
                        + " WHERE" + WRITABLE_KIND + " AND" + OUTSIDE_SYSTEM_SCHEMAS)) {
            while (rs.next()) {
                names.add(rs.getString(1));
                names.add(oidKey(rs.getLong(2)));
            }
        }
        return names;
    }

    /** The key of a relation by oid in {@link #relationNames}: NUL starts no name. */
    static String oidKey(long oid) {
        return "\0" + oid;
    }

    /**
     * {@code c.relkind} is one a write can target. Operators in catalog reads are named with pg_catalog as in
     * everything fenced sends: a session's search_path must not change what fenced reads (issue 24).
     */
    private static final String WRITABLE_KIND =
            " c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'f', 'v', 'm']::pg_catalog.char[])";

    /** {@code n} is not a system schema. */
    private static final String OUTSIDE_SYSTEM_SCHEMAS =
            " NOT n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog', 'information_schema']::pg_catalog.name[])";

    static List<Relation> relationsNamed(Connection c, TableName name) throws SQLException {
        String sql = "SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
                + " WHERE c.relname OPERATOR(pg_catalog.=) ? AND" + WRITABLE_KIND
                + (name.schema() == null ? "" : " AND n.nspname OPERATOR(pg_catalog.=) ?")
                + " AND" + OUTSIDE_SYSTEM_SCHEMAS;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, name.name());
            if (name.schema() != null) {
                ps.setString(2, name.schema());
            }
            return relations(ps);
        }
    }

    /** The column's type as PostgreSQL spells it, or null when the relation has no such live column. */
    static @Nullable String columnType(Connection c, long oid, String column) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.format_type(a.atttypid, NULL)"
                + " FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) ? AND a.attname"
                + " OPERATOR(pg_catalog.=) ? AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped")) {
            ps.setLong(1, oid);
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    static List<Relation> inheritanceKin(Connection c, long oid) throws SQLException {
        String sql = "WITH RECURSIVE down(oid) AS (SELECT ?::pg_catalog.oid UNION SELECT i.inhrelid FROM"
                + " pg_catalog.pg_inherits i JOIN down ON i.inhparent OPERATOR(pg_catalog.=) down.oid),"
                + " up(oid) AS (SELECT ?::pg_catalog.oid UNION SELECT i.inhparent FROM pg_catalog.pg_inherits i"
                + " JOIN up ON i.inhrelid OPERATOR(pg_catalog.=) up.oid)"
                + " SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
                + " WHERE c.oid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT oid FROM down UNION SELECT oid FROM up))"
                + " AND c.oid OPERATOR(pg_catalog.<>) ?::pg_catalog.oid";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, oid);
            ps.setLong(2, oid);
            ps.setLong(3, oid);
            return relations(ps);
        }
    }

    /**
     * Views (and views of views) whose rules read any of {@code oids}, and tables with a rule (CREATE RULE ...
     * DO ALSO UPDATE t) that names one: a write to such a table runs the rule's actions unfenced.
     */
    private static List<Relation> viewsReading(Connection c, List<Long> oids) throws SQLException {
        if (oids.isEmpty()) {
            return List.of();
        }
        String sql = "WITH RECURSIVE reads(oid) AS (SELECT pg_catalog.unnest(?::pg_catalog.oid[])"
                + " UNION SELECT r.ev_class FROM pg_catalog.pg_depend d"
                + " JOIN pg_catalog.pg_rewrite r ON r.oid OPERATOR(pg_catalog.=) d.objid"
                + " JOIN reads ON d.refobjid OPERATOR(pg_catalog.=) reads.oid"
                + " WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
                + " AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
                + " AND r.ev_class OPERATOR(pg_catalog.<>) d.refobjid)"
                + " SELECT c.oid, n.nspname, c.relname, c.relkind FROM reads JOIN pg_catalog.pg_class c"
                + " ON c.oid OPERATOR(pg_catalog.=) reads.oid"
                + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
                + " WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['v', 'r', 'p', 'f']::pg_catalog.char[])"
                + " AND c.oid OPERATOR(pg_catalog.<>) ALL (?::pg_catalog.oid[])";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Array array = c.createArrayOf("oid", oids.toArray());
            ps.setArray(1, array);
            ps.setArray(2, array);
            return relations(ps);
        }
    }

    private static Set<String> volatileFunctions(Connection c) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Statement s = c.createStatement();
                // with the operators whose function is volatile: a DELETE's WHERE is evaluated twice (DeleteFencer)
                ResultSet rs = s.executeQuery("SELECT proname FROM pg_catalog.pg_proc WHERE provolatile"
                        + " OPERATOR(pg_catalog.=) 'v' UNION SELECT o.oprname FROM pg_catalog.pg_operator AS o"
                        + " JOIN pg_catalog.pg_proc AS p ON p.oid OPERATOR(pg_catalog.=) o.oprcode"
                        + " WHERE p.provolatile OPERATOR(pg_catalog.=) 'v'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static Set<String> functionNames(Connection c) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Statement s = c.createStatement();
                // and every operator's name: one the read did not know may be volatile (DeleteFencer)
                ResultSet rs = s.executeQuery("SELECT proname FROM pg_catalog.pg_proc UNION SELECT oprname FROM"
                        + " pg_catalog.pg_operator")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static List<Relation> relations(PreparedStatement ps) throws SQLException {
        List<Relation> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Relation(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)));
            }
        }
        return out;
    }
}
