package dev.fenced.internal.cli;

import dev.fenced.internal.pg.PgStates;
import dev.fenced.internal.sql.SqlShape;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Where {@code audit} takes the application's statements from: {@code pg_stat_statements} on the live database,
 * a file with one statement per line, or PostgreSQL's own log written with {@code log_statement = mod}.
 */
final class StatementSources {

    /** A statement text and how often it ran. */
    record Seen(String text, long calls) {}

    /** Words a SQL command starts with: a line starting otherwise is not SQL. */
    private static final Set<String> COMMANDS = Set.of(
            "SELECT",
            "INSERT",
            "UPDATE",
            "DELETE",
            "MERGE",
            "WITH",
            "VALUES",
            "TABLE",
            "CREATE",
            "ALTER",
            "DROP",
            "TRUNCATE",
            "COPY",
            "DO",
            "CALL",
            "BEGIN",
            "START",
            "COMMIT",
            "END",
            "ROLLBACK",
            "ABORT",
            "SAVEPOINT",
            "RELEASE",
            "PREPARE",
            "EXECUTE",
            "DEALLOCATE",
            "SET",
            "RESET",
            "SHOW",
            "EXPLAIN",
            "ANALYZE",
            "ANALYSE",
            "VACUUM",
            "GRANT",
            "REVOKE",
            "LOCK",
            "DECLARE",
            "FETCH",
            "MOVE",
            "CLOSE",
            "LISTEN",
            "NOTIFY",
            "UNLISTEN",
            "DISCARD",
            "COMMENT",
            "REFRESH",
            "REINDEX",
            "CLUSTER",
            "CHECKPOINT",
            "LOAD",
            "SECURITY",
            "IMPORT",
            "REASSIGN");

    private StatementSources() {}

    /**
     * This database's entries of {@code pg_stat_statements}. Fails with the reason and the fix when the extension
     * is missing or not loaded, when the role may not read it, and when it hides other roles' statements (a role
     * without pg_read_all_stats sees {@code <insufficient privilege>}): an audit that cannot see every writer
     * would report a clean application it has not seen.
     */
    static List<Seen> pgStatStatements(Connection c) throws CliException {
        String user = "this role";
        List<Seen> out = new ArrayList<>();
        int hidden = 0;
        try {
            user = c.getMetaData().getUserName();
            String view = viewOf(c);
            if (view == null) {
                throw notInstalled();
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT s.query, pg_catalog.sum(s.calls)::pg_catalog.int8"
                            + " FROM " + view + " s WHERE s.dbid OPERATOR(pg_catalog.=) (SELECT d.oid FROM"
                            + " pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())"
                            + " GROUP BY s.query");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String q = rs.getString(1);
                    if (q == null || q.equals("<insufficient privilege>")) {
                        hidden++;
                    } else {
                        out.add(new Seen(q, rs.getLong(2)));
                    }
                }
            }
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            throw switch (state) {
                case PgStates.UNDEFINED_TABLE -> notInstalled();
                case PgStates.OBJECT_NOT_IN_PREREQUISITE_STATE ->
                    CliException.prerequisite("pg_stat_statements is"
                            + " installed but not loaded: add it to shared_preload_libraries and restart, or give --statements FILE or --log FILE ("
                            + Database.oneLine(e) + ")");
                case PgStates.INSUFFICIENT_PRIVILEGE ->
                    CliException.prerequisite(
                            "role " + user + " may not read" + " pg_stat_statements: GRANT pg_read_all_stats TO " + user
                                    + " (" + Database.oneLine(e) + ")");
                default -> CliException.prerequisite("cannot read pg_stat_statements: " + Database.oneLine(e));
            };
        }
        if (hidden > 0) {
            throw CliException.prerequisite(hidden + " statement(s) in pg_stat_statements are hidden from role " + user
                    + " (<insufficient privilege>): GRANT pg_read_all_stats TO " + user + ", or run audit as a role"
                    + " that has it; an audit that cannot see every writer proves nothing");
        }
        return out;
    }

    private static CliException notInstalled() {
        return CliException.prerequisite("pg_stat_statements is not installed in this database: run CREATE EXTENSION"
                + " pg_stat_statements (with shared_preload_libraries = 'pg_stat_statements'), or give --statements"
                + " FILE or --log FILE");
    }

    /**
     * The view's name with the schema its extension was created in, or null when it is not installed: read from
     * the catalog, so a {@code pg_stat_statements} earlier on the session's search_path is never read instead.
     */
    private static @Nullable String viewOf(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.quote_ident(n.nspname)"
                        + " FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n"
                        + " ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
                        + " WHERE e.extname OPERATOR(pg_catalog.=) 'pg_stat_statements'");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) + ".pg_stat_statements" : null;
        }
    }

    /** One statement per line; blank lines and lines that are only a {@code --} comment are skipped. */
    static List<Seen> statementsFile(Path file) throws CliException {
        String text = readText(file, "--statements");
        Map<String, Long> counts = new LinkedHashMap<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("--")) {
                continue;
            }
            requireSql(file, i + 1, line);
            counts.merge(line, 1L, Long::sum);
        }
        if (counts.isEmpty()) {
            throw CliException.usage("--statements " + file + " holds no statement (one SQL statement per line)");
        }
        return seen(counts);
    }

    /** PostgreSQL's own log, written with {@code log_statement = mod}: stderr, csvlog or jsonlog (see {@link ServerLog}). */
    static List<Seen> logFile(Path file) throws CliException {
        String text = readText(file, "--log");
        Map<String, Long> counts = new LinkedHashMap<>();
        ServerLog.Format format =
                ServerLog.read(file, text, statement -> counts.merge(statement.strip(), 1L, Long::sum));
        counts.remove("");
        if (counts.isEmpty()) {
            throw CliException.usage("--log " + file + " has no statement (LOG:  statement: ... or LOG:  execute"
                    + " <name>: ...) in what reads as PostgreSQL's "
                    + format.name().toLowerCase(Locale.ROOT)
                    + " log; was it written with log_statement = mod?");
        }
        return seen(counts);
    }

    private static List<Seen> seen(Map<String, Long> counts) {
        List<Seen> out = new ArrayList<>();
        counts.forEach((k, v) -> out.add(new Seen(k, v)));
        return out;
    }

    /** True when the text starts with a SQL command word and lexes as SQL; {@code audit} and {@code explain} agree on it. */
    static boolean isSql(String text) {
        String first = SqlShape.firstWord(text);
        return first != null && COMMANDS.contains(first.toUpperCase(Locale.ROOT)) && SqlShape.lexes(text);
    }

    static String abbreviated(String text) {
        return abbreviate(text);
    }

    private static void requireSql(Path file, int lineNumber, String line) throws CliException {
        if (!isSql(line)) {
            throw CliException.usage("--statements " + file + " line " + lineNumber + " is not an SQL statement: "
                    + abbreviate(line) + " (one statement per line)");
        }
    }

    private static String readText(Path file, String option) throws CliException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw CliException.usage(option + " " + file + ": cannot read it ("
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            if (text.indexOf('\0') >= 0) {
                throw CliException.usage(option + " " + file + " is not a text file (it holds NUL bytes)");
            }
            return text;
        } catch (CharacterCodingException e) {
            throw CliException.usage(option + " " + file + " is not a text file (not UTF-8)");
        }
    }

    static String abbreviate(String s) {
        String one = Output.oneLine(s);
        return one.length() <= 60 ? "'" + one + "'" : "'" + one.substring(0, 57) + "...'";
    }
}
