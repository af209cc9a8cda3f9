package dev.fenced.internal.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarFile;

/**
 * {@code -javaagent:fenced-agent.jar[=config=/path/fenced.properties]}.
 *
 * <p>Start-up, in this order: the bootstrap jar (the context store and the helpers advice calls) goes on the
 * bootstrap class path before any fenced-driver class can load; the configuration is read and checked with
 * the application's own fenced-driver; then the instrumentation is installed. Bad configuration stops the
 * JVM here, with a message on stderr and exit status 1, before the application's main runs.
 */
public final class FencedAgent {

    static final String BOOTSTRAP_JAR = "META-INF/fenced/fenced-bootstrap.jar";

    /** The bootstrap jar as placed on the bootstrap class path; its class files describe the helpers. */
    static volatile JarFile bootstrapJar;

    private FencedAgent() {}

    public static void premain(String arguments, Instrumentation inst) {
        try {
            long start = System.nanoTime();
            String configFile = configFile(arguments);
            appendBootstrapJar(inst);
            Installer.install(configFile, inst);
            if (System.getenv("FENCED_AGENT_DEBUG") != null) {
                System.err.println("fenced agent: started in " + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
        } catch (AgentStartException e) {
            System.err.println("fenced agent: " + e.getMessage());
            System.err.println("fenced agent: the JVM is stopped because the agent's configuration is bad");
            System.err.flush();
            System.exit(1);
        }
    }

    /** Agent arguments: empty, or {@code config=FILE}. */
    static String configFile(String arguments) throws AgentStartException {
        if (arguments == null || arguments.isBlank()) {
            return null;
        }
        String a = arguments.trim();
        if (a.startsWith("config=") && a.length() > "config=".length()) {
            String file = a.substring("config=".length());
            if (!Files.isRegularFile(Path.of(file))) {
                throw new AgentStartException(
                        "bad configuration: the file given as =config=" + file + " does not exist");
            }
            return Path.of(file).toAbsolutePath().toString();
        }
        throw new AgentStartException(
                "bad agent argument '" + arguments + "': expected nothing or config=/path/fenced.properties");
    }

    private static void appendBootstrapJar(Instrumentation inst) throws AgentStartException {
        try (InputStream in = FencedAgent.class.getClassLoader().getResourceAsStream(BOOTSTRAP_JAR)) {
            if (in == null) {
                throw new AgentStartException(BOOTSTRAP_JAR + " is missing from the agent jar");
            }
            Path jar = Files.createTempFile("fenced-bootstrap-", ".jar");
            jar.toFile().deleteOnExit();
            Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
            bootstrapJar = new JarFile(jar.toFile());
            inst.appendToBootstrapClassLoaderSearch(bootstrapJar);
        } catch (IOException e) {
            throw new AgentStartException("cannot place the context store on the bootstrap class path: " + e);
        }
    }

    /** A problem that stops the JVM at start. */
    static final class AgentStartException extends Exception {
        private static final long serialVersionUID = 1L;

        AgentStartException(String message) {
            super(message);
        }
    }
}
