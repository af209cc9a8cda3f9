package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.fenced.internal.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the command-line tool: in this JVM through {@link Main#run}, or as {@code java -jar} of the built jar. */
final class Cli {

    record Result(int exit, String out, String err) {
        /** A failure is one line on standard error, never a stack trace. */
        Result oneLineError() {
            assertFalse(err.contains("\tat ") || err.contains("Exception in thread"), err);
            assertEquals(1, err.strip().lines().count(), () -> "one line expected on stderr:\n" + err);
            return this;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private Cli() {}

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The built driver jar (failsafe runs after package). */
    static Path jar() {
        Path jar = Path.of(System.getProperty("fencedtest.driver.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the driver jar is not built: " + jar);
        }
        return jar;
    }

    /** {@code java [jvmArgs] -jar JAR args} in a fresh JVM, with no class path of ours. */
    static Result process(Path jar, List<String> jvmArgs, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        return process(command, Map.of());
    }

    /**
     * Any command line as its own process (a JVM, or the {@code tools/fenced} launcher), with no class path of ours
     * and these environment variables added to ours.
     */
    static Result process(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("CLASSPATH");
        pb.environment().putAll(env);
        Path out = Files.createTempFile("fenced-cli", ".out");
        Path err = Files.createTempFile("fenced-cli", ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("did not finish: " + command);
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** pgjdbc's jar, from this JVM's class path (for a child JVM that runs the command line). */
    static Path pgjdbcJar() throws Exception {
        return Path.of(org.postgresql.Driver.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    }
}
