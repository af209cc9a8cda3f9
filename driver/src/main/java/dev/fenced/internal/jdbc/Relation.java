package dev.fenced.internal.jdbc;

import dev.fenced.internal.config.TableName;

/**
 * A relation as the catalog names it, for the driver's first connect and for the command line's reports alike;
 * {@code kind} is pg_class.relkind.
 */
public record Relation(long oid, String schema, String name, String kind) {

    public TableName tableName() {
        return new TableName(schema, name);
    }

    /** Schema-qualified, quoted where needed: how fenced names it in messages and SQL. */
    public String display() {
        return tableName().toString();
    }

    /** A view or materialized view: it has no rows of its own to fence. */
    public boolean isView() {
        return isPlainView() || kind.equals("m");
    }

    /** A plain view (relkind {@code v}): writes through it may reach a protected table's rows. */
    boolean isPlainView() {
        return kind.equals("v");
    }
}
