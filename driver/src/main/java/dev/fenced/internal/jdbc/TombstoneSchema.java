package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import dev.fenced.FencedSqlState;
import dev.fenced.FencingException;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.pg.SchemaLock;
import dev.fenced.internal.pg.SearchPath;
import dev.fenced.internal.sql.Tombstones;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The database side of tombstones (semantics 9): the table deletes record into, and the check every insert
 * into a protected table with a primary key runs.
 *
 * <p>A fenced DELETE records, in the same statement, one tombstone per deleted row: the table's label, the row's
 * primary key (as a jsonb array) and the deleter's token. The same trigger writes them, firing {@code AFTER DELETE}
 * too: it sees the row version the DELETE removed (its key then, whatever the DELETE's snapshot saw), and takes the
 * token the fenced DELETE handed over for that statement ({@code Tombstones.handOverToken}); a DELETE fenced did not
 * write records nothing. An insert must then fail when a tombstone with a newer token exists for its key. That check runs in an {@code AFTER INSERT ... FOR EACH ROW} trigger, not in the
 * rewritten INSERT, for two reasons. It sees the row as stored (defaults applied, values coerced to the column
 * types), so the key it computes is the key the DELETE recorded. And it runs after the row is in the primary-key
 * index: a stale INSERT that started while the newer holder's DELETE was still open waits there for that DELETE
 * to end, and only then reads the tombstones, with a fresh snapshot (READ COMMITTED, a volatile function), so it
 * sees the tombstone the DELETE committed. A check inside the INSERT's own expressions would read the statement's
 * snapshot, taken before that DELETE committed, and let the stale row in. The trigger also covers every way of
 * inserting: upserts that insert, MERGE's INSERT action, COPY; and an UPDATE that sets a key column (moving a row
 * onto a deleted key is bringing it back). Such an UPDATE also leaves a tombstone for the key it moves the row off,
 * with its own token, as a DELETE of that key would. The token it compares is the row's fence column,
 * which fenced always supplies and never lets the writer choose; a NULL (an unfenced section) is not checked.
 *
 * <p>The failure is raised with its own SQLSTATE ({@link FencedSqlState#TOMBSTONE_CHECK}), which data cannot
 * produce, and the driver turns it into {@code StaleTokenException}.
 */
final class TombstoneSchema {

    /** Name of the trigger on every protected table with a primary key. */
    static final String TRIGGER = Tombstones.TRIGGER;

    private TombstoneSchema() {}

    /** One relation to guard: its oid, the label its tombstones use, its fence column and key columns. */
    record Guarded(long oid, String display, String label, String fenceColumn, List<String> key) {}

    /** The check function's name for the tombstone table {@code table}: {@code <table>_check} beside it. */
    static TableName function(TableName table) {
        return new TableName(table.schema(), table.name() + "_check");
    }

    /**
     * The search_path every function fenced installs runs with: only the system catalog (and the session's temp
     * schema last, where PostgreSQL never looks for functions or operators). A session may put its own schemas,
     * operators and temp tables first (issue 24); what the functions read is schema-qualified anyway.
     */
    static final String FIXED_SEARCH_PATH = "SET search_path TO pg_catalog, pg_temp";

    /** How {@link #FIXED_SEARCH_PATH} reads in {@code pg_proc.proconfig}. */
    private static final String FIXED_SEARCH_PATH_CONFIG = "search_path=pg_catalog, pg_temp";

    /**
     * {@code table} with its schema: an unqualified name (the default {@code fenced_tombstone}) is resolved once, never
     * in a temp schema ({@link SearchPath#schemaOf}). Everything fenced writes then names the table with that schema.
     */
    static TableName qualified(Connection c, TableName table, FencedProperty setting) throws SQLException {
        if (table.schema() != null) {
            return table;
        }
        return new TableName(SearchPath.schemaOf(c, table.name(), setting.key()), table.name());
    }

    /** The schema of a name {@link #qualified} returned, which always names one. */
    static String schemaOf(TableName qualified) {
        return Objects.requireNonNull(qualified.schema(), "qualified() names the schema");
    }

    static String createTable(TableName table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (relation pg_catalog.text NOT NULL, key pg_catalog.jsonb"
                + " NOT NULL, token bigint NOT NULL, deleted_at pg_catalog.timestamptz NOT NULL DEFAULT"
                + " pg_catalog.now(), PRIMARY KEY (relation, key))";
    }

    /**
     * The key function {@code <table>_key(row, VARIADIC columns)}: the row's primary key as a jsonb array, one
     * element per key column. The DELETE's tombstones and the insert check both build keys with it, so they agree
     * whatever the two sessions' settings: its SET clauses fix every setting {@code to_jsonb} reads (a
     * {@code timestamptz} key renders with the session's TimeZone, an interval with IntervalStyle, a float with
     * extra_float_digits, a bytea with bytea_output), which would otherwise make one key two tombstone keys.
     */
    static String createKeyFunction(TableName table) {
        return "CREATE OR REPLACE FUNCTION " + Tombstones.keyFunction(table)
                + "(r anyelement, VARIADIC cols pg_catalog.text[]) RETURNS pg_catalog.jsonb LANGUAGE plpgsql STABLE "
                + KEY_SETTINGS + " " + FIXED_SEARCH_PATH
                + " AS " + dollarQuoted(KEY_BODY);
    }

    static final String KEY_SETTINGS =
            "SET TimeZone TO 'UTC' SET IntervalStyle TO 'postgres' SET extra_float_digits TO '1'"
                    + " SET bytea_output TO 'hex' SET DateStyle TO 'ISO, MDY'";

    static final String KEY_BODY = "\n"
            + "DECLARE\n"
            + "  j jsonb := to_jsonb(r);\n"
            + "  k jsonb := '[]';\n"
            + "BEGIN\n"
            + "  FOR i IN 1 .. cardinality(cols) LOOP k := k || jsonb_build_array(j -> cols[i]); END LOOP;\n"
            + "  RETURN k;\n"
            + "END\n";

    /**
     * {@code body} as a dollar-quoted string whose tag the body does not contain: the body holds the configured
     * table's name, and a quoted name may hold any tag ({@code "x$fenced$..."}), which would end the string there
     * and make the rest of the name SQL.
     */
    static String dollarQuoted(String body) {
        String tag = "$fenced$";
        for (int n = 1; body.contains(tag); n++) {
            tag = "$fenced" + n + "$";
        }
        return tag + body + tag;
    }

    static String createFunction(TableName table) {
        return "CREATE OR REPLACE FUNCTION " + function(table) + "() RETURNS pg_catalog.trigger LANGUAGE plpgsql "
                + FIXED_SEARCH_PATH + " AS "
                + dollarQuoted(functionBody(table));
    }

    /**
     * The check. Only the tombstone lookup is a query (with a fresh snapshot, see above); the key is built with
     * the key function the DELETE uses too (see {@link #createKeyFunction}).
     */
    static String functionBody(TableName table) {
        return "\n"
                + "DECLARE\n"
                + "  r jsonb := to_jsonb(NEW);\n"
                + "  tok bigint := (r ->> TG_ARGV[1])::bigint;\n"
                + "  cols text[] := '{}';\n"
                + "  k jsonb;\n"
                + "  moved jsonb;\n"
                + "  newer bigint;\n"
                + "  deleter text;\n"
                + "  started text;\n"
                + "BEGIN\n"
                + "  FOR i IN 2 .. TG_NARGS - 1 LOOP cols := cols || TG_ARGV[i]; END LOOP;\n"
                // A DELETE: OLD is the row version actually deleted (under READ COMMITTED, the newest one, also when
                // a concurrent UPDATE moved it to another key first). Only a fenced DELETE records, with the token it
                // handed over for this very statement (see Tombstones): any other DELETE finds no setting, or one a
                // former statement of the transaction stamped with another start.
                + "  IF TG_OP = 'DELETE' THEN\n"
                + "    deleter := current_setting('" + Tombstones.DELETER_SETTING + "', true);\n"
                + "    started := statement_timestamp()::text || '/';\n"
                + "    IF deleter IS NULL OR left(deleter, length(started)) <> started THEN RETURN NULL; END IF;\n"
                + "    INSERT INTO " + table + " AS t (relation, key, token) VALUES (TG_ARGV[0], "
                + Tombstones.keyFunction(table) + "(OLD, VARIADIC cols), substr(deleter, length(started) + 1)::bigint)"
                + " ON CONFLICT (relation, key) DO UPDATE SET token = GREATEST(t.token, EXCLUDED.token);\n"
                + "    RETURN NULL;\n"
                + "  END IF;\n"
                + "  IF tok IS NULL THEN RETURN NULL; END IF;\n"
                + "  k := " + Tombstones.keyFunction(table) + "(NEW, VARIADIC cols);\n"
                // An UPDATE that moves the row off its key leaves the old key behind as a delete would: a tombstone
                // with the mover's token (the fence column fenced just set), so a holder older than the mover
                // cannot insert the old key again.
                + "  IF TG_OP = 'UPDATE' THEN\n"
                + "    moved := " + Tombstones.keyFunction(table) + "(OLD, VARIADIC cols);\n"
                + "    IF moved IS DISTINCT FROM k THEN\n"
                + "      INSERT INTO " + table + " AS t (relation, key, token) VALUES (TG_ARGV[0], moved, tok)"
                + " ON CONFLICT (relation, key) DO UPDATE SET token = GREATEST(t.token, EXCLUDED.token);\n"
                + "    END IF;\n"
                + "  END IF;\n"
                // Under REPEATABLE READ or SERIALIZABLE the lookup below reads the transaction's snapshot, which
                // cannot see a tombstone committed after it was taken. Claiming the key in the tombstone table's
                // primary key can: ON CONFLICT with a conflicting row this snapshot does not see fails with a
                // serialization failure (and waits for a DELETE still open). The claim is taken back at once.
                + "  IF current_setting('transaction_isolation') <> 'read committed' THEN\n"
                + "    INSERT INTO " + table
                + " AS t (relation, key, token) VALUES (TG_ARGV[0], k, tok) ON CONFLICT DO NOTHING;\n"
                + "    IF FOUND THEN DELETE FROM " + table + " t WHERE t.relation = TG_ARGV[0] AND t.key = k; END IF;\n"
                + "  END IF;\n"
                + "  SELECT t.token INTO newer FROM " + table + " t WHERE t.relation = TG_ARGV[0] AND t.key = k"
                + " AND t.token > tok;\n"
                + "  IF FOUND THEN\n"
                + "    RAISE EXCEPTION 'fenced-tombstone:%:%', newer, TG_ARGV[0] USING ERRCODE = '"
                + FencedSqlState.TOMBSTONE_CHECK.code() + "',\n"
                + "      DETAIL = 'a newer holder deleted this row; a stale holder cannot bring it back';\n"
                + "  END IF;\n"
                + "  RETURN NULL;\n"
                + "END\n";
    }

    /** The trigger's arguments: label, fence column, key columns. */
    static List<String> arguments(Guarded g) {
        List<String> args = new ArrayList<>();
        args.add(g.label());
        args.add(g.fenceColumn());
        args.addAll(g.key());
        return args;
    }

    /**
     * Creates what is missing: the table, the function, and the trigger on each relation in {@code guarded}
     * (partitions get theirs from the partitioned table). Looks before it creates, so a database that has it
     * all needs no privilege and takes no lock. Fails naming the relation when it cannot.
     */
    static void ensure(Connection c, TableName table, List<Guarded> guarded) throws SQLException {
        if (guarded.isEmpty() || inPlace(c, table, guarded)) {
            return;
        }
        // something is missing: create it under the schema lock, looking again once it is held (see SchemaLock)
        SchemaWrites.runLocked(c, conn -> createMissing(conn, table, guarded));
    }

    /** True when the table, both functions (as this version writes them) and every relation's trigger are there. */
    private static boolean inPlace(Connection c, TableName table, List<Guarded> guarded) throws SQLException {
        if (!exists(c, "SELECT pg_catalog.to_regclass(?) IS NOT NULL", table.toString())
                || !KEY_BODY.equals(storedBody(c, Tombstones.keyFunction(table), "(anyelement, pg_catalog.text[])"))
                || !functionBody(table).equals(storedBody(c, function(table), "()"))) {
            return false;
        }
        for (Guarded g : guarded) {
            if (!isPartition(c, g.oid()) && !hasTrigger(c, g, table)) {
                return false;
            }
        }
        return true;
    }

    /** Creates what is missing; the caller holds the schema lock. */
    private static void createMissing(Connection c, TableName table, List<Guarded> guarded) throws SQLException {
        try {
            if (!exists(c, "SELECT pg_catalog.to_regclass(?) IS NOT NULL", table.toString())) {
                run(c, createTable(table));
            }
            if (!KEY_BODY.equals(storedBody(c, Tombstones.keyFunction(table), "(anyelement, pg_catalog.text[])"))) {
                run(c, createKeyFunction(table));
            }
            if (!functionBody(table).equals(storedBody(c, function(table), "()"))) {
                run(c, createFunction(table));
            }
        } catch (SQLException e) {
            if (SchemaLock.alreadyExists(e)) {
                throw e; // a race, not a privilege problem: SchemaWrites.runLocked looks again
            }
            throw new FencingException(
                    "fenced: cannot create the tombstone table " + table + " or its check function "
                            + function(table) + " (" + e.getMessage()
                            + "); create them with the privileges needed, or set"
                            + " fenced.tombstones=false to go without (then a stale holder can insert a row a newer holder"
                            + " deleted)",
                    FencingException.SCHEMA,
                    e);
        }
        for (Guarded g : guarded) {
            if (isPartition(c, g.oid()) || hasTrigger(c, g, table)) {
                continue;
            }
            StringBuilder sql = new StringBuilder("CREATE OR REPLACE TRIGGER ")
                    .append(TRIGGER)
                    .append(" AFTER INSERT OR DELETE OR UPDATE OF ")
                    .append(String.join(
                            ", ", g.key().stream().map(TableName::quote).toList()))
                    .append(" ON ")
                    .append(g.display())
                    .append(" FOR EACH ROW EXECUTE FUNCTION ")
                    .append(function(table))
                    .append('(');
            List<String> args = arguments(g);
            for (int i = 0; i < args.size(); i++) {
                sql.append(i == 0 ? "" : ", ")
                        .append('\'')
                        .append(args.get(i).replace("'", "''"))
                        .append('\'');
            }
            sql.append(')');
            try {
                run(c, sql.toString());
            } catch (SQLException e) {
                if (SchemaLock.alreadyExists(e)) {
                    throw e; // a race, not a privilege problem: SchemaWrites.runLocked looks again
                }
                if (!hasTrigger(c, g, table)) {
                    throw new FencingException(
                            "fenced: cannot create the tombstone check trigger on " + g.display()
                                    + " (" + e.getMessage()
                                    + "); run as the table's owner, or set fenced.tombstones=false to go"
                                    + " without (then a stale holder can insert a row a newer holder deleted)",
                            FencingException.SCHEMA,
                            e);
                }
            }
        }
    }

    private static boolean isPartition(Connection c, long oid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT relispartition FROM pg_catalog.pg_class WHERE oid OPERATOR(pg_catalog.=) ?")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /**
     * True when the relation has our trigger with exactly these arguments, calling the check of {@code table}.
     * One calling another tombstone table's check (a writer configured with another {@code fenced.tombstone.table})
     * fails the connect: its deletes and this one's inserts would look in different tables.
     */
    private static boolean hasTrigger(Connection c, Guarded g, TableName table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.encode(tgargs, 'escape'), tgfoid"
                + " OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(?)"
                // AFTER INSERT OR DELETE OR UPDATE, FOR EACH ROW (tgtype 1 | 4 | 8 | 16) and no WHEN: a trigger
                // replaced under our name with a WHEN (false) or other events would never check an insert (or
                // record a delete), so it is created again
                + " FROM pg_catalog.pg_trigger WHERE tgrelid OPERATOR(pg_catalog.=) ? AND tgname OPERATOR(pg_catalog.=) ?"
                + " AND tgenabled OPERATOR(pg_catalog.<>) 'D' AND tgtype OPERATOR(pg_catalog.=) 29 AND tgqual IS NULL"
                // UPDATE OF exactly the key's columns: one watching others would let an UPDATE move a row onto a
                // deleted key unchecked (array_agg of no rows is NULL, never '{}': the COALESCEs compare as
                // IS NOT DISTINCT FROM would, with pg_catalog's =)
                + " AND COALESCE((SELECT pg_catalog.array_agg(a ORDER BY a) FROM"
                + " pg_catalog.unnest(tgattr::pg_catalog.int2[]) a), '{}') OPERATOR(pg_catalog.=)"
                + " COALESCE((SELECT pg_catalog.array_agg(attnum ORDER BY attnum) FROM pg_catalog.pg_attribute"
                + " WHERE attrelid OPERATOR(pg_catalog.=) tgrelid AND NOT attisdropped AND attname::pg_catalog.text"
                + " OPERATOR(pg_catalog.=) ANY (?::pg_catalog.text[])), '{}')")) {
            ps.setString(1, function(table) + "()");
            ps.setLong(2, g.oid());
            ps.setString(3, TRIGGER);
            ps.setArray(4, c.createArrayOf("text", g.key().toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                if (!rs.getBoolean(2)) {
                    throw new FencingException(
                            "fenced: the tombstone check trigger " + TRIGGER + " on " + g.display()
                                    + " calls another function than " + function(table)
                                    + "(): another writer of this table uses"
                                    + " another fenced.tombstone.table, so its deletes and these inserts would look in different"
                                    + " tables; use one tombstone table for every writer (or drop the trigger to move)",
                            FencingException.SCHEMA);
                }
                String stored = rs.getString(1);
                return stored != null && stored.equals(String.join("\\000", arguments(g)) + "\\000");
            }
        }
    }

    /**
     * The body of the function as stored, or null when there is none or it runs without the fixed search_path (one
     * an older fenced created, or one replaced behind fenced's back): then it is created again.
     */
    private static @Nullable String storedBody(Connection c, TableName function, String arguments) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT p.prosrc FROM pg_catalog.pg_proc p"
                + " WHERE p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(?) AND ? OPERATOR(pg_catalog.=) ANY"
                + " (p.proconfig)")) {
            ps.setString(1, function + arguments);
            ps.setString(2, FIXED_SEARCH_PATH_CONFIG);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static boolean exists(Connection c, String sql, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Runs one DDL statement (see {@link SchemaWrites}). */
    private static void run(Connection c, String sql) throws SQLException {
        SchemaWrites.run(c, sql);
    }
}
