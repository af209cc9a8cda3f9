package dev.fenced.internal.agent;

import dev.fenced.FencingException;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.internal.lease.LeaseTableName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.jspecify.annotations.Nullable;

/**
 * The agent's configuration, read at start with the application's fenced-driver through the system class
 * loader (so the same keys, sources and checks as the driver). Kept apart from {@link FencedAgent} because
 * it links to driver classes, which exist only after the bootstrap jar is in place.
 *
 * <p>Lease-bound methods are checked here, at start, against the class files on the application class path,
 * read without loading or initialising any application class: a class or method that does not exist stops
 * the JVM at once rather than leaving a job silently unprotected until (or unless) the class loads. The class
 * file is read with the ASM that Byte Buddy bundles, method headers only: a handful of classes, where a Byte
 * Buddy type pool loads hundreds.
 */
final class StartupConfig {

    /**
     * Name prefixes of classes the agent never instruments: itself, its Byte Buddy, and JDK-internal and test
     * framework packages (instrumenting them risks circular class loading). A lease-bound class there would
     * never get its lease, so it is refused at start, as is one in {@code java.} (only the JDK types the agent
     * names are instrumented there).
     */
    static final List<String> NOT_INSTRUMENTED = NotInstrumented.PREFIXES;

    private static final List<String> NEVER_LEASE_BOUND = concat(NOT_INSTRUMENTED, "java.");

    private static List<String> concat(List<String> list, String more) {
        List<String> all = new ArrayList<>(list);
        all.add(more);
        return List.copyOf(all);
    }

    /** One configured lease-bound method. */
    record Binding(String lease, String className, String methodName) {}

    final boolean enabled;
    final List<Binding> bindings;

    private StartupConfig(boolean enabled, List<Binding> bindings) {
        this.enabled = enabled;
        this.bindings = bindings;
    }

    static StartupConfig read(@Nullable String configFile) throws FencedAgent.AgentStartException {
        if (configFile == null && ConfigLoader.noStandardSource()) {
            // nothing configures fenced: every key has its default (fenced.agent.enabled=true, no lease methods),
            // known without loading the configuration's classes at start
            return new StartupConfig(true, List.of());
        }
        FencedConfig config;
        try {
            config = ConfigLoader.forAgent(configFile == null ? null : Path.of(configFile));
        } catch (FencingException e) {
            throw new FencedAgent.AgentStartException(messageOf(e).replaceFirst("^fenced: ", ""));
        } catch (IllegalArgumentException e) {
            throw new FencedAgent.AgentStartException("bad configuration: " + e.getMessage());
        }
        try {
            LeaseTableName.parse(
                    config.leaseTable()); // the agent's leases create and use it: refused now, not at the first grant
        } catch (IllegalArgumentException e) {
            throw new FencedAgent.AgentStartException(
                    "bad configuration: fenced.lease.table: " + messageOf(e).replaceFirst("^fenced: ", ""));
        }
        List<Binding> bindings = new ArrayList<>();
        if (config.agentEnabled() && !config.leaseMethods().isEmpty()) { // no class files read without them
            ClassLoader app = ClassLoader.getSystemClassLoader();
            for (LeaseMethod m : config.leaseMethods().values()) {
                check(app, m);
                bindings.add(new Binding(m.name(), m.className(), m.methodName()));
            }
        }
        return new StartupConfig(config.agentEnabled(), List.copyOf(bindings));
    }

    private static void check(ClassLoader app, LeaseMethod m) throws FencedAgent.AgentStartException {
        String key = "fenced.lease." + m.name() + ".method";
        for (String prefix : NEVER_LEASE_BOUND) {
            if (m.className().startsWith(prefix)) {
                throw new FencedAgent.AgentStartException("bad configuration: " + key + "=" + m.className() + "#"
                        + m.methodName() + ": the agent does not instrument classes in " + prefix + "*, so this"
                        + " method would run without its lease; move it to a package of your own");
            }
        }
        byte[] classFile = classFile(app, m.className());
        if (classFile == null) {
            throw new FencedAgent.AgentStartException("bad configuration: " + key + "=" + m.className() + "#"
                    + m.methodName() + ": class " + m.className() + " is not on the application class path");
        }
        TreeSet<String> names = new TreeSet<>();
        boolean[] found = {false};
        new ClassReader(classFile)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public @Nullable MethodVisitor visitMethod(
                                    int access, String name, String descriptor, String signature, String[] thrown) {
                                if (name.startsWith("<") || (access & Opcodes.ACC_SYNTHETIC) != 0) {
                                    return null; // constructors, the type initializer, compiler-made methods
                                }
                                names.add(name);
                                if (name.equals(m.methodName())
                                        && (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                                    found[0] = true;
                                }
                                return null;
                            }
                        },
                        ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        if (!found[0]) {
            throw new FencedAgent.AgentStartException("bad configuration: " + key + "=" + m.className() + "#"
                    + m.methodName() + ": class " + m.className() + " declares no method with a body named '"
                    + m.methodName() + "' (it declares: " + (names.isEmpty() ? "none" : String.join(", ", names))
                    + ")");
        }
    }

    /** The exception's message, or the exception itself when it has none (the ones read here always have one). */
    private static String messageOf(Exception e) {
        String message = e.getMessage();
        return message == null ? e.toString() : message;
    }

    /** The class file of {@code className} as {@code app} would load it, or null when it has none. */
    private static byte @Nullable [] classFile(ClassLoader app, String className)
            throws FencedAgent.AgentStartException {
        try (InputStream in = app.getResourceAsStream(className.replace('.', '/') + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new FencedAgent.AgentStartException("cannot read the class file of " + className + ": " + e);
        }
    }
}
