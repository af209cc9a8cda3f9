package dev.fenced.config;

import dev.fenced.FencingMode;

/**
 * A table whose writes are fenced: its name as registered, its fence column (folded) and its mode.
 * {@code derivedFrom} is null for a registered table, or the registered table a partition, child or
 * parent was found through in the catalog.
 */
public record ProtectedTable(TableName name, String column, FencingMode mode, ProtectedTable derivedFrom) {

    public ProtectedTable(TableName name, String column, FencingMode mode) {
        this(name, column, mode, null);
    }

    /** The name used in messages: the registered spelling. */
    public String displayName() {
        return name.toString();
    }
}
