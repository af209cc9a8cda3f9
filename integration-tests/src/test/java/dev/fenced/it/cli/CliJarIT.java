package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built jar run as users run it: {@code java -jar fenced-driver-<version>.jar}, in its own JVM. */
@Tag("jvm-sensitive")
class CliJarIT {

    @Test
    void helpNeedsNoPgjdbc(@TempDir Path home) throws Exception {
        Cli.Result r = Cli.process(Cli.jar(), List.of("-Duser.home=" + home), "--help");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(
                r.out().contains("check")
                        && r.out().contains("audit")
                        && r.out().contains("explain"),
                r::toString);
        Cli.Result none = Cli.process(Cli.jar(), List.of("-Duser.home=" + home)).oneLineError();
        assertEquals(2, none.exit(), none::toString);
    }

    /** pgjdbc from ~/.m2 (the fallback), the check over a real database, the exit status through the process. */
    @Test
    void checkThroughJavaJarFindsPgjdbcInTheMavenRepository() throws Exception {
        String url = CliServer.createDatabase();
        CliServer.execute(url, "CREATE TABLE totals (id int PRIMARY KEY, amount int)");
        Cli.Result r = Cli.process(Cli.jar(), List.of(), "check", "--url", url, "--tables", "totals");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.out().contains("fix     ALTER TABLE public.totals ADD COLUMN last_token bigint;"), r::toString);
        CliServer.execute(url, "ALTER TABLE public.totals ADD COLUMN last_token bigint");
        Cli.Result ok = Cli.process(Cli.jar(), List.of(), "check", "--url", url, "--tables", "totals");
        assertEquals(0, ok.exit(), ok::toString);
        Cli.Result explain =
                Cli.process(Cli.jar(), List.of(), "explain", "--tables", "totals", "DELETE FROM totals WHERE id = ?");
        assertEquals(0, explain.exit(), explain::toString);
        assertTrue(explain.out().contains("fenced [totals] (enforce mode), sends:"), explain::toString);
    }

    /** A postgresql-<version>.jar beside the driver jar is found by the tool (the manifest has no Class-Path). */
    @Test
    void pgjdbcBesideTheJarOrNamedByOption(@TempDir Path dir, @TempDir Path home) throws Exception {
        Path jar = Files.copy(Cli.jar(), dir.resolve(Cli.jar().getFileName()));
        List<String> noM2 = List.of("-Duser.home=" + home);
        Cli.Result missing =
                Cli.process(jar, noM2, "explain", "--tables", "t", "SELECT 1").oneLineError();
        assertEquals(2, missing.exit(), missing::toString);
        assertTrue(
                missing.err().contains("pgjdbc (org.postgresql:postgresql) not found: put postgresql-"),
                missing::toString);

        Cli.Result named =
                Cli.process(jar, noM2, "explain", "--pgjdbc", Cli.pgjdbcJar().toString(), "--tables", "t", "SELECT 1");
        assertEquals(0, named.exit(), named::toString);

        Cli.Result notAJar = Cli.process(jar, noM2, "explain", "--pgjdbc", jar.toString(), "--tables", "t", "SELECT 1")
                .oneLineError();
        assertEquals(2, notAJar.exit(), notAJar::toString);
        assertTrue(notAJar.err().contains("is not a pgjdbc jar"), notAJar::toString);

        Files.copy(Cli.pgjdbcJar(), dir.resolve(Cli.pgjdbcJar().getFileName()));
        Cli.Result beside = Cli.process(jar, noM2, "explain", "--tables", "t", "UPDATE t SET a = 1");
        assertEquals(0, beside.exit(), beside::toString);
        assertTrue(beside.out().contains("last_token"), beside::toString);
    }
}
