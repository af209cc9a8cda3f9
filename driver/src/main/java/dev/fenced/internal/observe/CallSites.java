package dev.fenced.internal.observe;

import java.util.List;
import java.util.Optional;

/**
 * Finds a writer's call site: the first stack frame that is neither fenced's own nor under one of the
 * configured prefixes (the JDK, the pool, the frameworks between the application and JDBC). Walked lazily
 * with {@link StackWalker}, which stops at the first frame that matches instead of filling a whole stack
 * trace; the inventory calls it only for the first writes of a shape and a sample after.
 */
final class CallSites {

    /** fenced's own packages, always stepped over; tests, demos and benches under dev.fenced are not. */
    private static final List<String> OWN = List.of(
            "jdbc.",
            "sql.",
            "config.",
            "context.",
            "lease.",
            "metrics.",
            "observe.",
            "bootstrap.",
            "agent.",
            "internal.");

    private static final String BASE = "dev.fenced.";
    private static final StackWalker WALKER = StackWalker.getInstance();
    static final String UNKNOWN = "(no frame outside the skipped prefixes)";

    private CallSites() {}

    static String capture(List<String> skip) {
        Optional<String> site = WALKER.walk(frames ->
                frames.filter(f -> !skipped(f.getClassName(), skip)).findFirst().map(CallSites::describe));
        return site.orElse(UNKNOWN);
    }

    static boolean skipped(String className, List<String> skip) {
        if (className.startsWith(BASE)) {
            String rest = className.substring(BASE.length());
            if (rest.indexOf('.') < 0) {
                return true; // the public API at the top: Fencing, Lease, Actions, ...
            }
            for (String own : OWN) {
                if (rest.startsWith(own)) {
                    return true;
                }
            }
        }
        for (String prefix : skip) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** {@code com.acme.Jobs.runNightly(Jobs.java:42)}, without the module and loader names of StackTraceElement. */
    private static String describe(StackWalker.StackFrame f) {
        String file = f.getFileName();
        int line = f.getLineNumber();
        return f.getClassName() + "." + f.getMethodName() + "("
                + (file == null ? "Unknown Source" : line > 0 ? file + ":" + line : file) + ")";
    }
}
