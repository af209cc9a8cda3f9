package dev.fenced.internal.agent;

import dev.fenced.FencingException;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.internal.lease.LeaseTableName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * The agent's configuration, read at start with the application's fenced-driver through the system class
 * loader (so the same keys, sources and checks as the driver). Kept apart from {@link FencedAgent} because
 * it links to driver classes, which exist only after the bootstrap jar is in place.
 *
 * <p>Lease-bound methods are checked here, at start, against the class files on the application class path,
 * read without loading or initialising any application class: a class or method that does not exist stops
 * the JVM at once rather than leaving a job silently unprotected until (or unless) the class loads.
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

    static StartupConfig read(String configFile) throws FencedAgent.AgentStartException {
        FencedConfig config;
        try {
            config = ConfigLoader.forAgent(configFile == null ? null : Path.of(configFile));
        } catch (FencingException e) {
            throw new FencedAgent.AgentStartException(e.getMessage().replaceFirst("^fenced: ", ""));
        } catch (IllegalArgumentException e) {
            throw new FencedAgent.AgentStartException("bad configuration: " + e.getMessage());
        }
        try {
            LeaseTableName.parse(
                    config.leaseTable()); // the agent's leases create and use it: refused now, not at the first grant
        } catch (IllegalArgumentException e) {
            throw new FencedAgent.AgentStartException(
                    "bad configuration: fenced.lease.table: " + e.getMessage().replaceFirst("^fenced: ", ""));
        }
        List<Binding> bindings = new ArrayList<>();
        if (config.agentEnabled() && !config.leaseMethods().isEmpty()) { // no class files read without them
            ClassLoader app = ClassLoader.getSystemClassLoader();
            TypePool pool = TypePool.Default.of(ClassFileLocator.ForClassLoader.of(app));
            for (LeaseMethod m : config.leaseMethods().values()) {
                check(pool, m);
                bindings.add(new Binding(m.name(), m.className(), m.methodName()));
            }
        }
        return new StartupConfig(config.agentEnabled(), List.copyOf(bindings));
    }

    private static void check(TypePool pool, LeaseMethod m) throws FencedAgent.AgentStartException {
        String key = "fenced.lease." + m.name() + ".method";
        for (String prefix : NEVER_LEASE_BOUND) {
            if (m.className().startsWith(prefix)) {
                throw new FencedAgent.AgentStartException("bad configuration: " + key + "=" + m.className() + "#"
                        + m.methodName() + ": the agent does not instrument classes in " + prefix + "*, so this"
                        + " method would run without its lease; move it to a package of your own");
            }
        }
        TypePool.Resolution resolution = pool.describe(m.className());
        if (!resolution.isResolved()) {
            throw new FencedAgent.AgentStartException("bad configuration: " + key + "=" + m.className() + "#"
                    + m.methodName() + ": class " + m.className() + " is not on the application class path");
        }
        TypeDescription type = resolution.resolve();
        TreeSet<String> names = new TreeSet<>();
        boolean found = false;
        for (MethodDescription.InDefinedShape method : type.getDeclaredMethods()) {
            if (method.isConstructor() || method.isTypeInitializer() || method.isSynthetic()) {
                continue;
            }
            names.add(method.getName());
            if (method.getName().equals(m.methodName()) && !method.isAbstract() && !method.isNative()) {
                found = true;
            }
        }
        if (!found) {
            throw new FencedAgent.AgentStartException("bad configuration: " + key + "=" + m.className() + "#"
                    + m.methodName() + ": class " + m.className() + " declares no method with a body named '"
                    + m.methodName() + "' (it declares: " + (names.isEmpty() ? "none" : String.join(", ", names))
                    + ")");
        }
    }
}
