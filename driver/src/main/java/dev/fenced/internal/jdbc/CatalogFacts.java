package dev.fenced.internal.jdbc;

import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.sql.FencingTargets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The driver's own catalog reads, for tools that report on the catalog rather than connect through it (the
 * command line's {@code check}, {@code explain} and {@code audit}): the same queries and rules as the first
 * connect, without creating anything and without failing on what is not ready.
 */
public final class CatalogFacts {

    private CatalogFacts() {}

    /**
     * The token domain the database records for {@code r} in {@code registry} ({@code fenced.tokenDomains.table}),
     * or null when none is recorded yet. Read only: {@code check} never claims a domain.
     */
    public static @Nullable String recordedTokenDomain(Connection c, TableName registry, Relation r)
            throws SQLException {
        return TokenDomainRegistry.recorded(c, registry, r.schema(), r.name());
    }

    /** Every table or view a protected-table entry matches, as the first connect matches it. */
    public static List<Relation> relationsNamed(Connection c, TableName name) throws SQLException {
        return CatalogInspector.relationsNamed(c, name);
    }

    /** The type of a column ({@code format_type}), or null when the relation has no such column. */
    public static @Nullable String columnType(Connection c, long oid, String column) throws SQLException {
        return CatalogInspector.columnType(c, oid, column);
    }

    /** True for the types the first connect accepts as a fence column. */
    public static boolean isFenceColumnType(String type) {
        return CatalogInspector.INTEGER_TYPES.contains(type);
    }

    /** Partitions, inheritance children and parents of a relation, all levels. */
    public static List<Relation> inheritanceKin(Connection c, long oid) throws SQLException {
        return CatalogInspector.inheritanceKin(c, oid);
    }

    /**
     * What the driver would protect on this database: the registered tables, their partitions and children,
     * the views that reach them, column lists and keys; leniently (a table not ready is left fenced by name,
     * as after DDL) and without creating the tombstone table.
     */
    public static FencingTargets targets(Connection c, FencedConfig config, List<ProtectedTable> tables)
            throws SQLException {
        return CatalogInspector.inspect(c, CatalogRead.forTools(config, tables));
    }
}
