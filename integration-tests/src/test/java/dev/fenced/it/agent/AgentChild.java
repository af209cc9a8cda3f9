package dev.fenced.it.agent;

import dev.fenced.it.support.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent tests' child JVMs: a {@link ChildJvm} (its main under the leak check like every child) with or without
 * {@code -javaagent:fenced-agent.jar}, and the reading of the class-loading log those tests ask the child for.
 */
final class AgentChild {

    private AgentChild() {}

    /** The agent jar the build made (failsafe passes its path). */
    static Path agentJar() {
        Path jar = Path.of(System.getProperty("fencedtest.agent.jar", "../agent/target/fenced-agent.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("agent jar not built: " + jar.toAbsolutePath());
        }
        return jar;
    }

    /**
     * @param agentArgument null: no agent; "": the agent without arguments; else its argument
     */
    static ChildJvm start(String agentArgument, List<String> jvmOptions, Class<?> main, String... args)
            throws IOException {
        return start(agentArgument, jvmOptions, null, main.getName(), args);
    }

    /** @param extraClassPath put before the test class path (classes a test generated), or null */
    static ChildJvm start(
            String agentArgument, List<String> jvmOptions, String extraClassPath, String main, String... args)
            throws IOException {
        List<String> options = new ArrayList<>();
        if (agentArgument != null) {
            options.add(
                    "-javaagent:" + agentJar().toAbsolutePath() + (agentArgument.isEmpty() ? "" : "=" + agentArgument));
        }
        options.addAll(jvmOptions);
        return ChildJvm.start(options, extraClassPath, main, args);
    }

    /** The classes named in a {@code -Xlog:class+load:file=<log>} file, in the order the JVM loaded them. */
    static List<String> loadedClasses(Path log) throws IOException {
        List<String> classes = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            // [0.012s][info][class,load] java.lang.Object source: shared objects file
            int start = line.indexOf("] ", line.indexOf("[class,load]")) + 2;
            int end = line.indexOf(' ', start);
            if (start > 1 && end > start) {
                classes.add(line.substring(start, end));
            }
        }
        return classes;
    }
}
