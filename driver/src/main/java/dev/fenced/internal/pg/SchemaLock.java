package dev.fenced.internal.pg;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

/**
 * The lock under which fenced creates its own objects (the tombstone table, its functions and triggers, the lease
 * table and sequence). {@code CREATE ... IF NOT EXISTS} and {@code CREATE OR REPLACE} are not safe against each
 * other: two sessions that both find nothing both insert into the catalog, and one fails on a catalog unique index
 * ({@code pg_proc_proname_args_nsp_index}, {@code pg_type_typname_nsp_index}) or with "already exists". Eight
 * application instances starting on a fresh database do exactly that. Creation therefore runs in a transaction that
 * first takes this transaction-scoped advisory lock, then looks again: the first creates, the others wait and find
 * everything in place. The lock is taken only when something is missing, so a database that has it all needs no
 * lock and no privilege.
 */
public final class SchemaLock {

    /** The advisory lock key: fixed, the same in every fenced version ("fencedDD" as ASCII, 0x66656E6365644444). */
    public static final long KEY = 0x66656E6365644444L;

    /**
     * What a race that slipped past the lock looks like (a session of a fenced release that did not take it, or
     * objects created by hand at the same moment): the object is there, which is all the creator wanted.
     */
    private static final Set<String> ALREADY_EXISTS = Set.of(
            PgStates.DUPLICATE_TABLE,
            PgStates.DUPLICATE_OBJECT,
            PgStates.DUPLICATE_FUNCTION,
            PgStates.UNIQUE_VIOLATION);

    private SchemaLock() {}

    /** Takes the lock in {@code c}'s current transaction (it is released when that ends). */
    public static void take(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_catalog.pg_advisory_xact_lock(" + KEY + ")");
        }
    }

    /** True when {@code e}, or an exception it was caused by, says an object fenced creates already exists. */
    public static boolean alreadyExists(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && ALREADY_EXISTS.contains(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
