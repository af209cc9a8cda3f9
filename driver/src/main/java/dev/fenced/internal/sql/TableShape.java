package dev.fenced.internal.sql;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the catalog said about one protected relation, for the rewrites that need more than its name.
 *
 * @param columns     live columns in attnum order (dropped columns left out): where PostgreSQL puts the
 *                    values of an INSERT without a column list
 * @param primaryKey  the columns that identify a row for tombstones (the primary key of the registered table
 *                    this relation shares rows with, in index order); empty when it has none
 * @param tombstoneLabel the name tombstones of these rows are kept under (the registered root relation's
 *                    name as the catalog spells it, so partitions, children and the parent share it); null when
 *                    the relation has no tombstones
 */
public record TableShape(
        List<String> columns,
        List<String> primaryKey,
        @Nullable String tombstoneLabel) {

    public TableShape {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
    }

    /** True when deletes of these rows leave tombstones and inserts are checked against them. */
    public boolean tombstoned() {
        return tombstoneLabel != null && !primaryKey.isEmpty();
    }
}
