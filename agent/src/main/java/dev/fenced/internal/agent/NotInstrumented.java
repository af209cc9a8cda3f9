package dev.fenced.internal.agent;

import java.util.List;

/**
 * Packages the agent never instruments. A class of its own, free of driver types: when fenced-driver is not on
 * the class path at start (a Boot fat jar), {@link StartupConfig} cannot even be linked, and the agent must still
 * install context propagation, which needs this list.
 */
final class NotInstrumented {

    static final List<String> PREFIXES =
            List.of("dev.fenced.internal.agent.", "net.bytebuddy.", "sun.", "jdk.", "com.sun.", "org.junit.");

    private NotInstrumented() {}
}
