package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit} against the driver, statement by statement: the audit's verdict for a text (with {@code --url}, so
 * planned from the catalog as the driver plans) must be what enforce mode does with that text at run time. Fenced:
 * refused without a token (FN002) and not refused with one; refused: refused with a token too (FN003); no token
 * needed, not a protected write, or not listed: never refused by fenced. Each run is rolled back.
 */
@Tag("server-sensitive")
class AuditDifferentialIT {

    private static final Pattern VERDICT = Pattern.compile("\"verdict\" *: *\"([^\"]*)\"");

    /** What enforce mode did with one text. */
    private static String runtime(String url, String sql, boolean token) throws SQLException {
        String fenced = "jdbc:fenced:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?")
                + "fenced.tables=ledger";
        try (Connection c = DriverManager.getConnection(fenced);
                Statement s = c.createStatement();
                FencingScope ignored = token ? Fencing.bind(7) : null) {
            c.setAutoCommit(false);
            try {
                s.execute(sql);
                return "ran";
            } catch (SQLException e) {
                String state = String.valueOf(e.getSQLState());
                return state.startsWith("FN") ? state : "server error";
            } finally {
                c.rollback();
            }
        }
    }

    private static String audit(String url, Path dir, String sql) throws Exception {
        Path file = Files.writeString(Files.createTempFile(dir, "statement", ".sql"), sql + "\n");
        Cli.Result r = Cli.run(
                "audit", "--url", url, "--tables", "ledger", "--statements", file.toString(), "--format", "json");
        Matcher m = VERDICT.matcher(r.out());
        return m.find() ? m.group(1) : "not listed";
    }

    @Test
    void theAuditsVerdictIsWhatEnforceModeDoes(@TempDir Path dir) throws Exception {
        String url = CliServer.createDatabase();
        CliServer.execute(
                url,
                "CREATE TABLE ledger (id int PRIMARY KEY, amount int, last_token bigint)",
                "CREATE TABLE side (id int)",
                "INSERT INTO ledger VALUES (1, 0, NULL), (2, 0, NULL)",
                "CREATE VIEW ledger_view AS SELECT * FROM ledger",
                "CREATE FUNCTION touch() RETURNS void LANGUAGE sql AS 'UPDATE ledger SET amount = 0'");
        List<String> statements = List.of(
                "UPDATE ledger SET amount = 1 WHERE id = 1",
                "update LEDGER set amount=1 where id=1 returning *",
                "INSERT INTO ledger (id, amount) VALUES (3, 1) ON CONFLICT (id) DO UPDATE SET amount = excluded.amount",
                "INSERT INTO ledger VALUES (4, 1)",
                "INSERT INTO ledger VALUES (4, 1, 99)",
                "WITH d AS (DELETE FROM ledger WHERE id = 2 RETURNING *) SELECT * FROM d",
                "DELETE FROM ledger WHERE id = (random() * 2)::int",
                "MERGE INTO ledger t USING side s ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = 0",
                "UPDATE ledger SET last_token = 5",
                "UPDATE ledger_view SET amount = 1",
                "TRUNCATE ledger",
                "TRUNCATE side",
                "COPY ledger FROM STDIN",
                "ALTER TABLE ledger DISABLE TRIGGER ALL",
                "ALTER TABLE ledger ADD COLUMN note text",
                "ALTER TABLE ledger DROP COLUMN last_token",
                "PREPARE p AS UPDATE ledger SET amount = 1",
                "DO $$ BEGIN UPDATE ledger SET amount = 1; END $$",
                "EXPLAIN ANALYZE UPDATE ledger SET amount = 1",
                "SELECT * FROM ledger FOR UPDATE",
                "INSERT INTO side SELECT id FROM ledger",
                "SELECT touch()",
                "UPDATE ledger SET amount = 1 WHERE id = 1; INSERT INTO side VALUES (1)",
                "CREATE RULE r AS ON INSERT TO side DO ALSO UPDATE ledger SET amount = 0",
                "SET standard_conforming_strings = off",
                "SELECT set_config('standard_conforming_strings', 'off', false)",
                "UPDATE ledger SET amount = amount + 1 WHERE id = 1",
                "CREATE TABLE ledger_copy AS SELECT * FROM ledger");
        List<String> mismatches = new ArrayList<>();
        for (String sql : statements) {
            String verdict = audit(url, dir, sql);
            String without = runtime(url, sql, false);
            String with = runtime(url, sql, true);
            boolean agrees = switch (verdict) {
                case "fenced", "fenced, relative update" -> without.equals("FN002") && !with.startsWith("FN");
                case "refused" -> with.equals("FN003") || with.equals("FN002") && without.equals("FN002");
                default -> !without.startsWith("FN") && !with.startsWith("FN");
            };
            if (!agrees) {
                mismatches.add(sql + " | audit: " + verdict + " | run time: " + without + " without a token, " + with
                        + " with one");
            }
        }
        assertEquals(List.of(), mismatches, String.join("\n", mismatches));
    }
}
