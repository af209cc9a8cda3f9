package dev.fenced.internal.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.jar.JarFile;
import org.jspecify.annotations.Nullable;

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
    private static volatile @Nullable JarFile bootstrapJar;

    private FencedAgent() {}

    public static void premain(@Nullable String arguments, Instrumentation inst) {
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
    static @Nullable String configFile(@Nullable String arguments) throws AgentStartException {
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

    /** The bootstrap jar, once {@link #premain} has placed it on the bootstrap class path. */
    static JarFile bootstrapJar() {
        JarFile jar = bootstrapJar;
        if (jar == null) {
            throw new IllegalStateException("fenced agent: the bootstrap jar is not on the bootstrap class path yet");
        }
        return jar;
    }

    private static void appendBootstrapJar(Instrumentation inst) throws AgentStartException {
        try (InputStream in = FencedAgent.class.getClassLoader().getResourceAsStream(BOOTSTRAP_JAR)) {
            if (in == null) {
                throw new AgentStartException(BOOTSTRAP_JAR + " is missing from the agent jar");
            }
            Path jar = newTempFile();
            jar.toFile().deleteOnExit();
            try (OutputStream out = Files.newOutputStream(jar, StandardOpenOption.WRITE)) {
                in.transferTo(out);
            }
            JarFile appended = new JarFile(jar.toFile());
            bootstrapJar = appended;
            inst.appendToBootstrapClassLoaderSearch(appended);
        } catch (IOException e) {
            throw new AgentStartException("cannot place the context store on the bootstrap class path: " + e);
        }
    }

    /**
     * A new, empty file of this process in the temporary directory. Not {@code Files.createTempFile}: its random
     * name comes from a SecureRandom, whose seeding and providers cost tens of milliseconds at start (and not the
     * process id: ProcessHandle starts a thread pool). The clock's nanoseconds make the name, and creating it fails
     * on any file or link already there, so a file someone planted is never written to nor put on the bootstrap
     * class path; the next name is tried.
     */
    private static Path newTempFile() throws IOException {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        for (int attempt = 0; ; attempt++) {
            Path file = dir.resolve("fenced-bootstrap-" + Long.toHexString(System.nanoTime()) + ".jar");
            try {
                return Files.createFile(file, OWNER_ONLY);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) {
                    throw e;
                }
            } catch (UnsupportedOperationException e) { // no POSIX permissions (Windows): the directory's apply
                return Files.createFile(file);
            }
        }
    }

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    /** A problem that stops the JVM at start. */
    static final class AgentStartException extends Exception {
        private static final long serialVersionUID = 1L;

        AgentStartException(String message) {
            super(message);
        }
    }
}
