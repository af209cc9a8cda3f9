package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.WriterInventory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit} over what a real server recorded: pg_stat_statements (preloaded in the embedded server) and the
 * server's own log with log_statement = mod. Three writers: plain pgjdbc without a token, fenced with a token, and
 * an unfenceable TRUNCATE.
 */
class AuditCommandIT {

    private String url;

    @BeforeEach
    void database() {
        url = CliServer.createDatabase();
        CliServer.execute(
                url,
                "CREATE TABLE ledger (id int PRIMARY KEY, amount int, last_token bigint, note text)",
                "CREATE TABLE side (id int)",
                "INSERT INTO ledger VALUES (1, 0, NULL), (2, 0, NULL)");
    }

    private void writers() throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            try (PreparedStatement ps = c.prepareStatement("UPDATE ledger SET amount = ? WHERE id = ?")) {
                for (int i = 0; i < 3; i++) {
                    ps.setInt(1, i);
                    ps.setInt(2, 1);
                    ps.executeUpdate();
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO side VALUES (1)");
                s.execute("TRUNCATE ledger");
            }
        }
        fencedWriter();
    }

    private void fencedWriter() throws Exception {
        String fenced = "jdbc:fenced:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?")
                + "fenced.tables=ledger&fenced.tombstones=false";
        try (Connection c = DriverManager.getConnection(fenced);
                FencingScope ignored = Fencing.bind(7);
                PreparedStatement ps = c.prepareStatement("UPDATE ledger SET amount = ? WHERE id = ?")) {
            ps.setInt(1, 9);
            ps.setInt(2, 2);
            ps.executeUpdate();
        }
    }

    @Test
    void pgStatStatementsNamesWhatEnforceWouldRefuse() throws Exception {
        assumeTrue(CliServer.hasPgStatStatements(), "the test server does not preload pg_stat_statements");
        CliServer.execute(url, "CREATE EXTENSION pg_stat_statements", "SELECT pg_stat_statements_reset()");
        writers();
        Cli.Result r = Cli.run("audit", "--url", url, "--tables", "ledger");
        assertEquals(1, r.exit(), r::toString);
        String out = r.out();
        assertTrue(
                out.matches("(?s).*\\n1 +refused +ledger +TRUNCATE ledger +TRUNCATE cannot be fenced; use DELETE\\n.*"),
                out);
        assertTrue(out.matches("(?s).*\\n3 +fenced +ledger +UPDATE ledger SET amount = \\? WHERE id = \\?\\n.*"), out);
        assertTrue(
                out.matches("(?s).*\\n1 +fenced \\(sent through fenced\\) +ledger +UPDATE ledger SET amount = \\?,"
                        + " last_token = CASE.*"),
                out);
        assertTrue(!out.contains("INSERT INTO side"), out);
        assertTrue(out.contains("refused by enforce mode"), out);

        Cli.Result json = Cli.run("audit", "--url", url, "--tables", "ledger", "--format", "json");
        assertTrue(json.out().contains("\"enforceRefuses\": true"), json::toString);
        Cli.Result md = Cli.run("audit", "--url", url, "--tables", "ledger", "--format", "markdown");
        assertTrue(md.out().contains("| 1 | refused | ledger | TRUNCATE ledger |"), md::toString);

        // the application fixed: only fenceable writes
        CliServer.execute(url, "SELECT pg_stat_statements_reset()");
        fencedWriter();
        Cli.Result clean = Cli.run("audit", "--url", url, "--tables", "ledger");
        assertEquals(0, clean.exit(), clean::toString);
        assertTrue(clean.out().contains("0 refused by enforce mode"), clean::toString);
    }

    @Test
    void roleWithoutPgReadAllStatsIsToldWhatToGrant() throws Exception {
        assumeTrue(CliServer.hasPgStatStatements(), "the test server does not preload pg_stat_statements");
        String role =
                "fenced_cli_" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
        CliServer.execute(url, "CREATE EXTENSION pg_stat_statements", "CREATE ROLE " + role + " LOGIN");
        writers();
        String limited = url.replaceFirst("user=[^&]*", "user=" + role);
        assumeTrue(limited.contains("user=" + role), "the test URL names no user to replace");
        Cli.Result r = Cli.run("audit", "--url", limited, "--tables", "ledger").oneLineError();
        assertEquals(2, r.exit(), r::toString); // a missing prerequisite: nothing was audited
        assertTrue(
                r.err()
                        .contains("hidden from role " + role
                                + " (<insufficient privilege>): GRANT pg_read_all_stats TO " + role),
                r::toString);
        CliServer.execute(url, "GRANT pg_read_all_stats TO " + role);
        Cli.Result granted = Cli.run("audit", "--url", limited, "--tables", "ledger");
        assertEquals(1, granted.exit(), granted::toString); // now it sees the TRUNCATE
        assertTrue(granted.out().contains("TRUNCATE ledger"), granted::toString);
        CliServer.execute(url, "DROP OWNED BY " + role, "REVOKE pg_read_all_stats FROM " + role);
    }

    @Test
    void withoutTheExtensionItSaysHowToGetIt() {
        Cli.Result r = Cli.run("audit", "--url", url, "--tables", "ledger").oneLineError();
        assertEquals(2, r.exit(), r::toString); // a missing prerequisite, as for explain and check
        assertTrue(
                r.err().contains("pg_stat_statements is not installed in this database: run CREATE EXTENSION"),
                r::toString);
    }

    /**
     * The server's own log, in each format the logging collector writes (stderr, csvlog, jsonlog): prepared
     * statements logged as execute lines, a multi-line one, simple queries.
     */
    @Test
    void serverLogWithLogStatementModInEveryFormat() throws Exception {
        assumeTrue(CliServer.log() != null, "the external test server's log is not readable here");
        writers();
        String marker = "marker_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c =
                        DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + "preferQueryMode=simple");
                Statement s = c.createStatement()) {
            s.execute("UPDATE ledger\n   SET amount = 5\n WHERE id = 2 AND amount IS NOT NULL");
            s.execute("INSERT INTO side SELECT 1 WHERE '" + marker + "' <> ''");
        }
        for (String extension : List.of("log", "csv", "json")) {
            Path log = CliServer.log(extension);
            String text = logged(log, marker);
            if (extension.equals("log")) {
                assertTrue(
                        text.contains("execute <unnamed>: UPDATE ledger SET amount = $1 WHERE id = $2")
                                || text.contains("execute S_"),
                        text);
            }
            // by content too: the same log under a name that says nothing
            Path renamed = Files.copy(
                    log,
                    log.resolveSibling("copy-of-" + extension + ".txt"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            for (Path file : List.of(log, renamed)) {
                Cli.Result r = Cli.run("audit", "--tables", "ledger", "--log", file.toString(), "--url", url);
                assertEquals(1, r.exit(), r::toString);
                String out = r.out();
                assertTrue(out.matches("(?s).*\\n\\d+ +refused +ledger +TRUNCATE ledger .*"), out);
                assertTrue(
                        out.matches(
                                "(?s).*\\n\\d+ +fenced +ledger +UPDATE ledger SET amount = \\? WHERE id = \\?\\n.*"),
                        out);
                assertTrue(
                        out.matches("(?s).*\\n\\d+ +fenced +ledger +UPDATE ledger SET amount = \\? WHERE id = \\? AND"
                                + " amount IS NOT NULL\\n.*"),
                        out);
                assertTrue(out.contains("fenced (sent through fenced)"), out);
            }
        }
    }

    /**
     * The roll-out's two views of one writer agree: what {@code audit} shows for the application's statements
     * before it uses fenced (pg_stat_statements and the server log, constants and $n normalised) is the shape
     * the writer inventory names once the same application runs through fenced in observe mode without a token.
     */
    @Test
    void anAuditRowAndAnInventoryRowForOneStatementHaveOneShape() throws Exception {
        assumeTrue(CliServer.hasPgStatStatements(), "the test server does not preload pg_stat_statements");
        CliServer.execute(url, "CREATE EXTENSION pg_stat_statements", "SELECT pg_stat_statements_reset()");
        String marker = "shape_" + UUID.randomUUID().toString().substring(0, 8);
        application(url + (url.contains("?") ? "&" : "?") + "preferQueryMode=extended", marker);
        Set<String> expected = Set.of(
                "UPDATE ledger SET amount = ? WHERE id = ?",
                "DELETE FROM ledger WHERE id = ? AND amount > ? AND note <> ?");
        Cli.Result pgss = Cli.run("audit", "--url", url, "--tables", "ledger", "--format", "json");
        assertEquals(0, pgss.exit(), pgss::toString);
        assertEquals(expected, auditShapes(pgss.out()), pgss::toString);
        if (CliServer.log() != null) {
            for (String extension : List.of("log", "csv", "json")) {
                logged(CliServer.log(extension), marker);
                Cli.Result log = Cli.run(
                        "audit",
                        "--url",
                        url,
                        "--tables",
                        "ledger",
                        "--format",
                        "json",
                        "--log",
                        CliServer.log(extension).toString());
                assertTrue(auditShapes(log.out()).containsAll(expected), log::toString);
            }
        }

        WriterInventory.clear();
        application(
                "jdbc:fenced:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?")
                        + "fenced.tables=ledger&fenced.mode=observe&fenced.tombstones=false",
                marker);
        assertEquals(
                expected,
                WriterInventory.writers("ledger").stream()
                        .map(WriterInventory.Writer::shape)
                        .collect(Collectors.toSet()),
                WriterInventory.writers().toString());
    }

    /** An application's two writers: a prepared UPDATE, and a DELETE with its constants written in. */
    private static void application(String jdbcUrl, String marker) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            try (PreparedStatement ps = c.prepareStatement("UPDATE ledger SET amount = ? WHERE id = ?")) {
                ps.setInt(1, 4);
                ps.setInt(2, 1);
                ps.executeUpdate();
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM ledger   WHERE id = 99 AND amount > 10 AND note <> '" + marker + "'");
            }
        }
    }

    /** The statement shapes of audit's JSON output. */
    private static Set<String> auditShapes(String json) {
        Set<String> out = new java.util.TreeSet<>();
        Matcher m = Pattern.compile("\"statement\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The log's text once it holds {@code marker}: the logging collector writes on its own schedule. */
    private static String logged(Path log, String marker) throws Exception {
        String text = "";
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!text.contains(marker) && System.nanoTime() < deadline) {
            // the logging collector (another process) offers nothing to wait on: read again until the last
            // statement is in, bounded by the deadline
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
            text = Files.exists(log) ? Files.readString(log) : "";
        }
        assertTrue(text.contains(marker), "the server log " + log + " never showed the last statement");
        return text;
    }

    @Test
    void statementsFileWithAndWithoutTheCatalog(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("statements.sql");
        Files.writeString(
                file,
                "-- from the application's repository\nINSERT INTO ledger VALUES ($1, $2)\n"
                        + "UPDATE ledger SET amount = $1 WHERE id = $2\n\nDELETE FROM ledger WHERE id = 1\n");
        Cli.Result names = Cli.run("audit", "--tables", "ledger", "--statements", file.toString());
        assertEquals(1, names.exit(), names::toString); // without the catalog the column order is unknown
        assertTrue(names.out().contains("INSERT without a column list"), names::toString);
        assertTrue(names.out().contains("planned from the table names only"), names::toString);
        Cli.Result catalog = Cli.run("audit", "--tables", "ledger", "--statements", file.toString(), "--url", url);
        assertEquals(0, catalog.exit(), catalog::toString);
        assertTrue(catalog.out().contains("3 statement shape(s) reach protected tables, 0 refused"), catalog::toString);
        Cli.Result both = Cli.run(
                        "audit", "--tables", "ledger", "--statements", file.toString(), "--log", file.toString())
                .oneLineError();
        assertEquals(2, both.exit());
    }
}
