package dev.fenced.internal.cli;

import dev.fenced.internal.config.TableName;
import org.jspecify.annotations.Nullable;

/** A fence column to add ({@code currentType} null) or to change to bigint, on one relation. */
record ColumnFix(
        String schema,
        String table,
        String column,
        @Nullable String currentType) {

    String relation() {
        return new TableName(schema, table).toString();
    }

    /** The exact SQL, as {@code check} prints it and the plain-SQL and Flyway migrations write it. */
    String sql() {
        String col = TableName.quote(column);
        return currentType == null
                ? "ALTER TABLE " + relation() + " ADD COLUMN " + col + " bigint;"
                : "ALTER TABLE " + relation() + " ALTER COLUMN " + col + " TYPE bigint USING " + col + "::bigint;";
    }
}
