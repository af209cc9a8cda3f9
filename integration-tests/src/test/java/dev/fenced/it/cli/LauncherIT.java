package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tools/fenced}, the launcher the help text and docs/rollout.md name, run as a user runs it from a source
 * checkout after {@code mvn package}: the script itself as a process, finding the driver jar in driver/target beside
 * its tools/ directory. HOME is an empty directory, so nothing comes from ~/.m2: pgjdbc is given as FENCED_PGJDBC and
 * the JVM as JAVA (this test's own). The exit status is the tool's: 0 all well, 1 needs action, 2 bad input.
 */
@Tag("jvm-sensitive")
class LauncherIT {

    private final Path launcher = Path.of(System.getProperty("fencedtest.root", ".."))
            .toAbsolutePath()
            .normalize()
            .resolve("tools/fenced");

    @TempDir
    Path home;

    private Cli.Result fenced(Map<String, String> extra, String... args) throws Exception {
        assertTrue(Files.isExecutable(launcher), () -> launcher + " is not an executable file");
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        command.addAll(List.of(args));
        Map<String, String> env = new HashMap<>(Map.of(
                "HOME", home.toString(),
                "JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "FENCED_PGJDBC", Cli.pgjdbcJar().toString()));
        env.putAll(extra);
        return Cli.process(command, env);
    }

    private Cli.Result fenced(String... args) throws Exception {
        return fenced(Map.of(), args);
    }

    @Test
    void helpNamesTheLauncherAsTheCommand() throws Exception {
        Cli.Result help = fenced("--help");
        assertEquals(0, help.exit(), help::toString);
        assertTrue(help.out().contains("usage: fenced <command> [options]"), help::toString);
        assertFalse(help.out().contains("usage: java -jar"), help::toString);
        for (String c : new String[] {"check", "audit", "explain"}) {
            assertTrue(help.out().contains("\n  " + c + " "), () -> c + " missing from\n" + help);
        }
        Cli.Result unknown = fenced("chek").oneLineError();
        assertEquals(2, unknown.exit(), unknown::toString);
        assertTrue(unknown.err().contains("unknown command 'chek'"), unknown::toString);
        assertTrue(unknown.err().contains("(see: fenced --help)"), unknown::toString);
        Cli.Result noUrl = fenced("check", "--tables", "t").oneLineError();
        assertEquals(2, noUrl.exit(), noUrl::toString);
    }

    @Test
    void checkOverARealDatabaseNeedsActionThenIsFine() throws Exception {
        String url = CliServer.createDatabase();
        CliServer.execute(url, "CREATE TABLE t (id int PRIMARY KEY, amount int)");
        Cli.Result missing = fenced("check", "--url", url, "--tables", "t");
        assertEquals(1, missing.exit(), missing::toString);
        assertTrue(
                missing.out().contains("fix     ALTER TABLE public.t ADD COLUMN last_token bigint;"),
                missing::toString);

        CliServer.execute(url, "ALTER TABLE public.t ADD COLUMN last_token bigint");
        Cli.Result fine = fenced("check", "--url", url, "--tables", "t");
        assertEquals(0, fine.exit(), fine::toString);

        Cli.Result badOption = fenced("check", "--url", url, "--tables", "t", "--migration", "rails", home.toString())
                .oneLineError();
        assertEquals(2, badOption.exit(), badOption::toString);
    }

    /** The launcher's own bad input: a driver jar that is not there is exit 2, one line, naming the variable. */
    @Test
    void aMissingDriverJarIsBadInput() throws Exception {
        Cli.Result r = fenced(Map.of("FENCED_JAR", home.resolve("nothing.jar").toString()), "--help")
                .oneLineError();
        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().contains("set FENCED_JAR="), r::toString);
        assertEquals("", r.out(), r::toString);
    }
}
