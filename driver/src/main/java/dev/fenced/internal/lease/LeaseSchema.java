package dev.fenced.internal.lease;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.pg.SchemaLock;
import dev.fenced.internal.pg.SearchPath;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The lease table and its token sequence. The DDL is the shipped resource {@value #RESOURCE}, the very
 * script users hand to Flyway or Liquibase; for another table name its default names are substituted.
 */
public final class LeaseSchema {

    /** Class-path location of the DDL. */
    public static final String RESOURCE = "dev/fenced/fenced-lease.sql";

    static final String DEFAULT_TABLE = "fenced_lease";

    /** How long creating the token index on an existing table may wait for its lock. */
    static final String INDEX_LOCK_TIMEOUT = "2s";

    private static final System.Logger LOG = Logs.get("dev.fenced.lease");

    private static final Pattern DEFAULT_NAMES = Pattern.compile("\\b" + DEFAULT_TABLE + "("
            + LeaseTableName.SEQUENCE_SUFFIX + "|" + LeaseTableName.TOKEN_INDEX_SUFFIX + ")?\\b");

    private LeaseSchema() {}

    /** The shipped script as it is. */
    public static String script() {
        try (InputStream in = LeaseSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("fenced: resource " + RESOURCE + " is missing from the driver jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("fenced: cannot read " + RESOURCE, e);
        }
    }

    /** A {@code --} comment to the end of its line (the shipped script has no string literals holding "--"). */
    private static final Pattern LINE_COMMENT = Pattern.compile("--[^\\n]*");

    /**
     * The script for {@code table}: its comments dropped, then the default names replaced by the table's and its
     * sequence's in the SQL that is left, so a configured name never lands inside a comment.
     */
    public static String script(LeaseTableName table) {
        Matcher m = DEFAULT_NAMES.matcher(LINE_COMMENT.matcher(script()).replaceAll(""));
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(replacement(table, m.group(1))));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** What a default name in the script becomes for {@code table}: {@code suffix} is the part after the table's. */
    private static String replacement(LeaseTableName table, @Nullable String suffix) {
        if (suffix == null) {
            return table.table();
        }
        // the index is named without its schema: CREATE INDEX puts it in its table's
        return suffix.equals(LeaseTableName.SEQUENCE_SUFFIX) ? table.sequence() : table.tokenIndex();
    }

    /**
     * {@code table} with its schema, resolved once at the store's set-up and never in a temp schema
     * ({@link SearchPath#schemaOf}): every statement after that names the table and its sequence with it, so a
     * session's search_path, a schema put first in it or a temp table {@code fenced_lease} cannot send one holder's
     * grants to another table or sequence than the other holders' (issue 24).
     */
    public static LeaseTableName qualified(Connection c, LeaseTableName table) throws SQLException {
        return qualified(c, table, FencedProperty.LEASE_TABLE.key());
    }

    /** Any table named as the lease table is, resolved the same way; {@code setting} names it in errors. */
    public static LeaseTableName qualified(Connection c, LeaseTableName table, String setting) throws SQLException {
        return table.schemaName() != null ? table : table.in(SearchPath.schemaOf(c, table.tableName(), setting));
    }

    /**
     * Makes sure the table and sequence exist and the sequence can be trusted, creating them if allowed.
     * Looks before it creates: an existing store needs no CREATE privilege, and a standby (where even
     * {@code CREATE ... IF NOT EXISTS} is an error) is named as what it is. {@code lease} is the lease
     * whose grant needed the store, for messages.
     */
    static void ensure(Connection c, LeaseTableName table, boolean create, String lease) throws SQLException {
        ensure(c, table, create, lease, false);
    }

    /** As above; {@code install}: an index that cannot be created is an error, not a warning. */
    private static void ensure(Connection c, LeaseTableName table, boolean create, String lease, boolean install)
            throws SQLException {
        State state = inspect(c, table);
        if (state.inRecovery) {
            throw StoreErrors.standby(c, lease, null);
        }
        if (!state.hasTable || !state.hasSequence) {
            if (!create) {
                throw StoreErrors.missing(table, lease, null);
            }
            try {
                runScript(c, table, lease);
            } catch (FencingException e) {
                throw e; // a second token counter: nothing was created
            } catch (SQLException e) {
                // Two processes creating the store at once: CREATE ... IF NOT EXISTS can still collide in
                // the catalog. If the other one won, the store is there and that is all we wanted.
                State again = inspect(c, table);
                if (!again.hasTable || !again.hasSequence) {
                    throw new FencingException(
                            "fenced: cannot create the lease table " + table + " and sequence " + table.sequence()
                                    + ": " + e.getMessage(),
                            FencingException.LEASE_STORE,
                            e);
                }
            }
            state = inspect(c, table);
        }
        refuseSecondCounter(c, table, lease);
        state.checkSequence(table);
        checkAhead(c, table);
        if (!state.hasTokenIndex) {
            addTokenIndex(c, table, create, install, lease);
        }
    }

    /**
     * A lease table made before the script had the token index (or by a migration that copied an older script)
     * still works, but every grant's check that its token exceeds every token in the table ({@link Tokens#aboveSql})
     * then scans the whole table: a grant's cost grows with every name ever granted. With {@code create} (the role
     * may create the store, so it is meant to keep it), the index is created now, by the script's own statement; a
     * role that may not (not the table's owner), or a table busy for longer than {@link #INDEX_LOCK_TIMEOUT}, gets
     * a warning naming the statement, and the grants go on, only slower. Without {@code create}, the schema is the
     * migrations' to change: the same warning. {@code install} (an administrator's command) fails instead.
     */
    private static void addTokenIndex(Connection c, LeaseTableName table, boolean create, boolean install, String lease)
            throws SQLException {
        String statement = tokenIndexStatement(table);
        String why;
        if (create || install) {
            try {
                inSchemaLock(c, s -> {
                    // CREATE INDEX waits for a SHARE lock; queued behind a long transaction it would hold every
                    // other grant and renewal up behind it, so it gives up instead
                    s.execute("SELECT pg_catalog.set_config('lock_timeout', '" + INDEX_LOCK_TIMEOUT + "', true)");
                    s.execute(statement);
                });
                return;
            } catch (SQLException e) {
                if (install) {
                    throw e;
                }
                why = "it could not be created (" + e.getMessage() + ")";
            }
        } else {
            why = FencedProperty.LEASE_CREATE_TABLE.key() + " is false, so fenced leaves the schema to your migrations";
        }
        LOG.log(
                System.Logger.Level.WARNING,
                "fenced: the lease table " + table + " has no index on its token column, so every grant (lease '"
                        + lease + "' is the first here) scans the whole table to check its token is above every"
                        + " token granted: grants slow down as the table grows (released rows stay). " + why
                        + ". Create it with: " + statement + " (CONCURRENTLY, if the table is large and busy)");
    }

    /** The script's statement creating the token index, for {@code table}: one text, run or shown. */
    static String tokenIndexStatement(LeaseTableName table) {
        for (String statement : script(table).split(";")) {
            String s = statement.strip();
            if (s.startsWith("CREATE INDEX")) {
                return s;
            }
        }
        throw new IllegalStateException("fenced: " + RESOURCE + " has no CREATE INDEX statement");
    }

    /**
     * Creates the table and sequence when missing and checks them, as the first grant does (one code path): for
     * {@code install}, run by an administrator so that the application's role never needs CREATE.
     */
    public static void install(Connection c, LeaseTableName table) throws SQLException {
        ensure(c, table, true, "(install)", true);
    }

    /**
     * The checks {@link #ensure} makes, without creating anything: for health checks. Returns null when the store
     * is ready, or what is still to come ("created at the first grant"); throws what a grant would.
     */
    static @Nullable String check(Connection c, LeaseTableName table, boolean create) throws SQLException {
        State state = inspect(c, table);
        if (state.inRecovery) {
            throw StoreErrors.standby(c, "(health check)", null);
        }
        if (!state.hasTable || !state.hasSequence) {
            if (!create) {
                throw StoreErrors.missing(table, "(health check)", null);
            }
            refuseSecondCounter(c, table, "(health check)");
            return "the lease table " + table + " is created at the first grant";
        }
        refuseSecondCounter(c, table, "(health check)");
        state.checkSequence(table);
        checkAhead(c, table);
        return null;
    }

    private static void runScript(Connection c, LeaseTableName table, String lease) throws SQLException {
        inSchemaLock(c, s -> {
            // Checked again under the lock: two first uses creating two different tables at once would each
            // have found the other missing.
            refuseSecondCounter(c, table, lease);
            s.execute(script(table));
        });
    }

    private interface Ddl {
        void run(Statement s) throws SQLException;
    }

    /**
     * Runs {@code ddl} in a transaction of its own under the schema lock, so concurrent first grants wait for the
     * first one's DDL (whose IF NOT EXISTS then finds everything) instead of colliding in the catalog.
     */
    private static void inSchemaLock(Connection c, Ddl ddl) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            SchemaLock.take(c);
            ddl.run(s);
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /**
     * One token counter per database. Every lease table draws its tokens from a sequence of its own; tokens of two
     * of them meet on the same protected rows, where a number from one says nothing about a number from the other:
     * a stale holder of one table's lease could outrank the current holder of the other's, and both hand out the
     * same name. So a second lease table in the database is refused at first use, before anything is created, as
     * a second token domain is. A lease table is a table with the lease columns and a {@code <table>_token_seq}
     * sequence beside it.
     */
    static void refuseSecondCounter(Connection c, LeaseTableName table, String lease) throws SQLException {
        // operators and functions named with pg_catalog, as in every statement the store sends (issue 24)
        String sql = "SELECT pg_catalog.format('%I.%I', n.nspname, t.relname) FROM pg_catalog.pg_class t"
                + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.relnamespace"
                + " WHERE t.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::pg_catalog.char[])"
                + " AND NOT (t.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(" + table.tableLiteral() + ")) IS TRUE"
                + " AND t.relpersistence OPERATOR(pg_catalog.<>) 't'" // a temp table is never one: see qualified
                + " AND NOT n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog', 'information_schema']::pg_catalog.name[])"
                + " AND (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid"
                + " OPERATOR(pg_catalog.=) t.oid AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped"
                + " AND a.attname OPERATOR(pg_catalog.=) ANY (ARRAY['name', 'holder', 'token', 'granted_at',"
                + " 'renewed_at', 'expires_at']::pg_catalog.name[])) OPERATOR(pg_catalog.=) 6"
                + " AND EXISTS (SELECT 1 FROM pg_catalog.pg_class q WHERE q.relnamespace OPERATOR(pg_catalog.=)"
                + " t.relnamespace AND q.relkind OPERATOR(pg_catalog.=) 'S' AND q.relname OPERATOR(pg_catalog.=)"
                + " (t.relname OPERATOR(pg_catalog.||) '" + LeaseTableName.SEQUENCE_SUFFIX + "')::pg_catalog.name)"
                + " ORDER BY 1";
        java.util.List<String> others = new java.util.ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                others.add(rs.getString(1));
            }
        }
        if (!others.isEmpty()) {
            throw new FencingException(
                    "fenced: refusing lease table " + table + " (lease '" + lease + "'): this database already has"
                            + " the lease table" + (others.size() > 1 ? "s " : " ") + String.join(", ", others)
                            + ", with a token sequence of its own. Tokens of two counters meet on the same protected"
                            + " rows, where one counter's numbers say nothing about the other's: both would grant the"
                            + " same name, and a stale holder's write could land while the newer holder is refused."
                            + " Use one lease table per database (the same LeaseManager table, fenced.lease.table and"
                            + " lock provider table everywhere), or drop the one no longer used",
                    FencingException.LEASE_STORE);
        }
    }

    private static State inspect(Connection c, LeaseTableName table) throws SQLException {
        String sql = "SELECT pg_catalog.to_regclass(" + table.tableLiteral() + ") IS NOT NULL, s.seqrelid IS NOT NULL,"
                + " s.seqincrement, s.seqcache, s.seqcycle, pg_catalog.pg_is_in_recovery(),"
                + " EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid OPERATOR(pg_catalog.=)"
                + " 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid OPERATOR(pg_catalog.=) s.seqrelid"
                + " AND d.deptype OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'i']::pg_catalog.char[])),"
                // a valid, whole-table btree index whose first column is token: what max(token) can read from its end
                + " EXISTS (SELECT 1 FROM pg_catalog.pg_index i"
                + " JOIN pg_catalog.pg_class x ON x.oid OPERATOR(pg_catalog.=) i.indexrelid"
                + " JOIN pg_catalog.pg_am m ON m.oid OPERATOR(pg_catalog.=) x.relam"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid"
                + " AND a.attnum OPERATOR(pg_catalog.=) i.indkey[0]"
                + " WHERE i.indrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(" + table.tableLiteral() + ")"
                + " AND i.indisvalid AND i.indpred IS NULL AND m.amname OPERATOR(pg_catalog.=) 'btree'"
                + " AND a.attname OPERATOR(pg_catalog.=) 'token')"
                + " FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_sequence s"
                + " ON s.seqrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(" + table.sequenceLiteral() + ")";
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return new State(
                    rs.getBoolean(1),
                    rs.getBoolean(2),
                    rs.getLong(3),
                    rs.getLong(4),
                    rs.getBoolean(5),
                    rs.getBoolean(6),
                    rs.getBoolean(7),
                    rs.getBoolean(8));
        }
    }

    /**
     * The next token must exceed every token already in the table: a sequence that was reset, restored from an
     * older backup or recreated would otherwise grant some of them again. The table is read first and the
     * sequence after it: a grant racing with this check drew its value before it committed, so the sequence
     * read later is at least as far as any token the table showed (sequences are not transactional).
     */
    private static void checkAhead(Connection c, LeaseTableName table) throws SQLException {
        long highest;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_catalog.max(token) FROM " + table.table())) {
            rs.next();
            highest = rs.getLong(1);
        }
        String sql = "SELECT CASE WHEN pg_catalog.has_sequence_privilege(" + table.sequenceLiteral()
                + ", 'SELECT,USAGE')"
                + " THEN pg_catalog.pg_sequence_last_value(" + table.sequenceLiteral() + "::pg_catalog.regclass) END, "
                + Tokens.TIMELINE_SQL;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            long lastValue = rs.getLong(1); // NULL (0): never used since it was created or reset
            long timeline = rs.getLong(2);
            long current = Tokens.token(timeline, lastValue);
            if (highest > current) {
                throw new FencingException(
                        "fenced: the token sequence " + table.sequence() + " is behind the lease"
                                + " table: its last value " + lastValue + " (token " + current + " on timeline "
                                + timeline
                                + ") is below the highest token in " + table + ", " + highest + " (sequence value "
                                + Tokens.sequenceOf(highest) + " on timeline " + Tokens.timelineOf(highest)
                                + "), so tokens"
                                + " already granted would be granted again. Was it reset or recreated? Move it past them with"
                                + " SELECT setval(" + table.sequenceLiteral() + ", "
                                + Math.max(1, Tokens.sequenceOf(highest))
                                + ")",
                        FencingException.LEASE_STORE);
            }
        }
    }

    private record State(
            boolean hasTable,
            boolean hasSequence,
            long increment,
            long cache,
            boolean cycle,
            boolean inRecovery,
            boolean owned,
            boolean hasTokenIndex) {

        /**
         * Tokens are only as good as the sequence: a per-session cache hands values out of grant order, a
         * cycling one repeats them, a negative increment shrinks them.
         */
        void checkSequence(LeaseTableName table) throws FencingException {
            if (increment <= 0 || cache != 1 || cycle) {
                throw new FencingException(
                        "fenced: the token sequence " + table.sequence() + " must be INCREMENT BY"
                                + " a positive number, CACHE 1 and NO CYCLE (it has INCREMENT BY " + increment
                                + ", CACHE "
                                + cache + (cycle ? ", CYCLE" : ", NO CYCLE")
                                + "): otherwise tokens can repeat or arrive out"
                                + " of order. Fix it with ALTER SEQUENCE " + table.sequence()
                                + " INCREMENT BY 1 CACHE 1 NO CYCLE",
                        FencingException.LEASE_STORE);
            }
            if (owned) {
                throw new FencingException(
                        "fenced: the token sequence " + table.sequence() + " is owned by a table"
                                + " column (OWNED BY, or an identity column): dropping or recreating that table drops the"
                                + " sequence, and a new one starts the tokens over. Fix it with ALTER SEQUENCE "
                                + table.sequence() + " OWNED BY NONE",
                        FencingException.LEASE_STORE);
            }
        }
    }
}
