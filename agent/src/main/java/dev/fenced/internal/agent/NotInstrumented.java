package dev.fenced.internal.agent;

import java.util.List;

/**
 * Packages where a lease-bound class is refused at start: the agent itself, its Byte Buddy, and JDK-internal and
 * test framework packages (instrumenting them risks circular class loading). The agent selects the types it
 * instruments by name ({@link ClassFilter}), so nothing in these packages is ever instrumented.
 */
final class NotInstrumented {

    static final List<String> PREFIXES =
            List.of("dev.fenced.internal.agent.", "net.bytebuddy.", "sun.", "jdk.", "com.sun.", "org.junit.");

    private NotInstrumented() {}
}
