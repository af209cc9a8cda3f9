package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedProperty;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool's contract for bad input: one line naming the problem, exit 2 (bad input or a missing prerequisite),
 * never a stack trace; the same status for the same kind of problem in every command.
 */
class CliUsageIT {

    @Test
    void helpListsTheCommandsAndEachCommandHasItsOwn() {
        Cli.Result r = Cli.run("--help");
        assertEquals(0, r.exit(), r::toString);
        for (String c :
                new String[] {"check", "audit", "explain", "--url", "--tables", "--config", "--fenced.KEY=VALUE"}) {
            assertTrue(r.out().contains(c), () -> c + " missing from\n" + r.out());
        }
        Cli.Result check = Cli.run("check", "--help");
        assertEquals(0, check.exit());
        assertTrue(check.out().contains("--migration FORMAT DIR"), check::toString);
        assertTrue(Cli.run("audit", "--help").out().contains("--statements FILE"));
        assertTrue(Cli.run("help", "explain").out().contains("SQL..."));
    }

    @Test
    void helpAndErrorsNameACommandThatExists() {
        // no `fenced` program is on a user's PATH unless they use tools/fenced, which says so itself
        Cli.Result r = Cli.run("--help");
        assertTrue(r.out().contains("usage: java -jar fenced-driver-<version>.jar <command> [options]"), r::toString);
        assertTrue(r.out().contains("tools/fenced"), r::toString);
        Cli.Result none = Cli.run().oneLineError();
        assertTrue(none.err().contains("(see: java -jar fenced-driver-<version>.jar --help)"), none::toString);
    }

    @Test
    void explainOfSomethingThatIsNotSqlIsBadInputAsInAudit() {
        Cli.Result prose =
                Cli.run("explain", "--tables", "totals", "remember to buy milk").oneLineError();
        assertEquals(2, prose.exit(), prose::toString);
        assertTrue(prose.err().contains("not an SQL statement: 'remember to buy milk'"), prose::toString);
        Cli.Result cut = Cli.run("explain", "--tables", "totals", "UPDATE totals SET a = 'oops")
                .oneLineError();
        assertEquals(2, cut.exit(), cut::toString);
    }

    @Test
    void auditFlagsTheRelativeUpdatesTheDriverWarnsAbout(@TempDir Path dir) throws Exception {
        Path statements = dir.resolve("statements.sql");
        Files.writeString(
                statements,
                "UPDATE totals SET amount = amount + 1 WHERE id = 1\nUPDATE totals SET amount = 5 WHERE id = 2\n");
        Cli.Result r = Cli.run("audit", "--tables", "totals", "--statements", statements.toString());
        assertEquals(0, r.exit(), r::toString); // fenced, and so not refused: a warning, as the driver's
        assertTrue(
                r.out()
                        .matches(
                                "(?s).*\\n1 +fenced, relative update +totals +UPDATE totals SET amount = amount \\+ \\?.*"),
                r::toString);
        assertTrue(r.out().contains("write whole new values"), r::toString);
        assertTrue(r.out().contains("1 relative update(s) the driver warns about"), r::toString);
        Cli.Result json =
                Cli.run("audit", "--tables", "totals", "--statements", statements.toString(), "--format", "json");
        assertTrue(json.out().contains("\"relativeUpdates\": 1"), json::toString);
    }

    @Test
    void missingOrUnknownCommandIsBadUsage() {
        Cli.Result none = Cli.run().oneLineError();
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("missing command; one of: check, audit, explain"), none::toString);
        Cli.Result optionFirst = Cli.run("--url", "jdbc:postgresql://x/y").oneLineError();
        assertEquals(2, optionFirst.exit());
        assertTrue(optionFirst.err().contains("missing command"), optionFirst::toString);
        Cli.Result unknown = Cli.run("chekc").oneLineError();
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("unknown command 'chekc'"), unknown::toString);
    }

    @Test
    void unknownOptionIsBadUsage() {
        Cli.Result r = Cli.run("check", "--tabels", "totals").oneLineError();
        assertEquals(2, r.exit());
        assertEquals(
                "fenced: unknown option --tabels for check; see: fenced check --help",
                r.err().strip());
        Cli.Result twice = Cli.run("explain", "--tables", "a", "--fenced.tables=b", "SELECT 1")
                .oneLineError();
        assertEquals(2, twice.exit());
        assertTrue(twice.err().contains("fenced.tables given twice"), twice::toString);
        Cli.Result noValue = Cli.run("check", "--migration", "flyway").oneLineError();
        assertEquals(2, noValue.exit());
        assertTrue(noValue.err().contains("--migration needs FORMAT DIR"), noValue::toString);
    }

    /** The same configuration code as the driver: the same error, naming where the key was written. */
    @Test
    void unknownFencedKeyIsTheDriversError() {
        String driverSays;
        try {
            DriverManager.getConnection("jdbc:fenced:postgresql://127.0.0.1:1/x?fenced.tabels=t")
                    .close();
            throw new AssertionError("the driver accepted an unknown key");
        } catch (SQLException e) {
            driverSays = e.getMessage();
        }
        Cli.Result r = Cli.run("explain", "--fenced.tabels=t", "SELECT 1").oneLineError();
        assertEquals(2, r.exit());
        assertEquals(
                driverSays.replace("in the JDBC URL", "in the command line"),
                r.err().strip());
        assertTrue(
                r.err().contains("(did you mean fenced.tables?); known keys: " + FencedProperty.knownKeys()),
                r::toString);

        Cli.Result d = Cli.run("explain", "-Dfenced.mode=sometimes", "--tables", "t", "SELECT 1")
                .oneLineError();
        assertEquals(2, d.exit());
        assertTrue(d.err().contains("fenced.mode in the command line"), d::toString);

        Cli.Result inUrl = Cli.run(
                        "check", "--url", "jdbc:fenced:postgresql://127.0.0.1:1/x?fenced.colum=c", "--tables", "t")
                .oneLineError();
        assertEquals(2, inUrl.exit());
        assertTrue(inUrl.err().contains("unknown key 'fenced.colum' in the --url"), inUrl::toString);
    }

    @Test
    void configFileIsReadAsTheDriverReadsIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fenced.properties");
        Files.writeString(file, "fenced.tables=totals\nfenced.mode=observe\n");
        Cli.Result r = Cli.run("explain", "--config", file.toString(), "UPDATE totals SET a = ? WHERE id = ?");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().contains("fenced [totals] (observe mode)"), r::toString);
        Files.writeString(file, "fenced.tables=totals\nfenced.nope=1\n");
        Cli.Result bad =
                Cli.run("explain", "--config", file.toString(), "SELECT 1").oneLineError();
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("unknown key 'fenced.nope' in " + file.toAbsolutePath()), bad::toString);
        Cli.Result missing = Cli.run(
                        "explain", "--config", dir.resolve("nope.properties").toString(), "SELECT 1")
                .oneLineError();
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("does not exist"), missing::toString);
    }

    @Test
    void badUrlIsBadUsage() {
        Cli.Result scheme = Cli.run("check", "--url", "jdbc:mysql://localhost/db", "--tables", "t")
                .oneLineError();
        assertEquals(2, scheme.exit());
        assertTrue(
                scheme.err().contains("bad --url jdbc:mysql://localhost/db: expected jdbc:fenced:postgresql://"),
                scheme::toString);
        Cli.Result unreachable = Cli.run(
                        "check", "--url", "jdbc:postgresql://127.0.0.1:1/db?user=x&password=secret", "--tables", "t")
                .oneLineError();
        assertEquals(2, unreachable.exit());
        assertTrue(
                unreachable.err().startsWith("fenced: cannot connect to jdbc:postgresql://127.0.0.1:1/db"),
                unreachable::toString);
        assertTrue(!unreachable.err().contains("secret"), unreachable::toString);
        Cli.Result none = Cli.run("check", "--tables", "t").oneLineError();
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("give --url"), none::toString);
    }

    @Test
    void noTablesIsBadUsage() {
        Cli.Result r = Cli.run("explain", "SELECT 1").oneLineError();
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("no protected tables"), r::toString);
    }

    @Test
    void fileThatIsNotSqlIsBadUsage(@TempDir Path dir) throws Exception {
        Path prose = dir.resolve("notes.txt");
        Files.writeString(prose, "UPDATE totals SET a = 1\nremember to buy milk\n");
        Cli.Result r = Cli.run("audit", "--tables", "totals", "--statements", prose.toString())
                .oneLineError();
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("line 2 is not an SQL statement: 'remember to buy milk'"), r::toString);

        Path binary = dir.resolve("dump.bin");
        Files.write(binary, new byte[] {(byte) 0xC3, 0x28, 0, 1, 2});
        Cli.Result b = Cli.run("audit", "--tables", "totals", "--statements", binary.toString())
                .oneLineError();
        assertEquals(2, b.exit());
        assertTrue(b.err().contains("is not a text file"), b::toString);

        Path unterminated = dir.resolve("cut.sql");
        Files.writeString(unterminated, "UPDATE totals SET a = 'oops WHERE id = 1\n");
        assertEquals(
                2,
                Cli.run("audit", "--tables", "totals", "--statements", unterminated.toString())
                        .oneLineError()
                        .exit());

        Cli.Result log = Cli.run("audit", "--tables", "totals", "--log", prose.toString())
                .oneLineError();
        assertEquals(2, log.exit());
        assertTrue(
                log.err()
                        .contains("has no statement (LOG:  statement: ... or LOG:  execute <name>: ...) in what"
                                + " reads as PostgreSQL's stderr log"),
                log::toString);

        // csvlog and jsonlog, by extension: garbled records are named
        Path csv = dir.resolve("cut.csv");
        Files.writeString(
                csv,
                "2026-12-03 10:00:00.000 UTC,\"postgres\",\"db\",1,\"[local]\",a.1,1,\"UPDATE\",2026-12-03"
                        + " 10:00:00 UTC,3/4,0,LOG,00000,\"statement: UPDATE totals SET a = 1\n");
        Cli.Result cut =
                Cli.run("audit", "--tables", "totals", "--log", csv.toString()).oneLineError();
        assertEquals(2, cut.exit());
        assertTrue(
                cut.err().contains("is not PostgreSQL's csvlog log: record 1 has a quoted field that never ends"),
                cut::toString);
        Path shortCsv = dir.resolve("short.csv");
        Files.writeString(shortCsv, "a,b,c\n");
        Cli.Result few = Cli.run("audit", "--tables", "totals", "--log", shortCsv.toString())
                .oneLineError();
        assertTrue(
                few.err().contains("record 1 has 3 fields, not the 14 or more of PostgreSQL's csvlog"), few::toString);
        Path json = dir.resolve("bad.json");
        Files.writeString(
                json,
                "{\"error_severity\": \"LOG\", \"message\": \"statement: UPDATE totals SET a = 1\"}\n"
                        + "{\"error_severity\": \"LOG\", \"message\": \"statement: UPDATE tot\n");
        Cli.Result garbled =
                Cli.run("audit", "--tables", "totals", "--log", json.toString()).oneLineError();
        assertEquals(2, garbled.exit());
        assertTrue(
                garbled.err().contains("is not PostgreSQL's jsonlog log: line 2 is not a JSON object"),
                garbled::toString);

        Cli.Result absent = Cli.run(
                        "audit",
                        "--tables",
                        "totals",
                        "--log",
                        dir.resolve("none.log").toString())
                .oneLineError();
        assertEquals(2, absent.exit());
        assertTrue(absent.err().contains("cannot read it"), absent::toString);
    }

    @Test
    void explainWithoutUrlSaysWhatItAssumesAndShowsTheParameterPlan() {
        Cli.Result r = Cli.run(
                "explain", "--tables", "totals", "UPDATE totals SET amount = ? WHERE id = ?", "SELECT * FROM totals");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().contains("planned from the table names only"), r::toString);
        assertTrue(
                r.out()
                        .contains(
                                "UPDATE totals SET amount = ?, last_token = CASE WHEN pg_catalog.int8gt(last_token, ?) THEN"
                                        + " pg_catalog.pg_size_bytes(pg_catalog.concat('fenced-stale:', last_token, ':"),
                r::toString);
        assertTrue(r.out().contains("parameters: ?1 -> $1, ?2 -> $4; token -> $2 and $3"), r::toString);
        assertTrue(r.out().contains("passed through: it writes no protected table"), r::toString);

        Cli.Result refused = Cli.run("explain", "--tables", "totals", "TRUNCATE totals");
        assertEquals(1, refused.exit(), refused::toString);
        assertTrue(
                refused.out().contains("refused: fenced: statement on protected table totals refused: TRUNCATE"),
                refused::toString);

        Cli.Result observed = Cli.run(
                "explain", "--tables", "totals", "--fenced.mode=observe", "--format", "json", "TRUNCATE totals");
        assertEquals(0, observed.exit(), observed::toString);
        assertTrue(observed.out().contains("\"verdict\": \"refused\""), observed::toString);
        assertTrue(observed.out().contains("enforce mode refuses it"), observed::toString);

        Cli.Result format = Cli.run("explain", "--tables", "t", "--format", "yaml", "SELECT 1")
                .oneLineError();
        assertEquals(2, format.exit());
        Cli.Result nothing = Cli.run("explain", "--tables", "t").oneLineError();
        assertEquals(2, nothing.exit());
    }
}
