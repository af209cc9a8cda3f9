package dev.fenced.it.support;

import dev.fenced.internal.context.ContextAccess;
import dev.fenced.it.leak.LeakCheck;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * The suite-wide invariant ({@link LeakCheck}) in a child JVM: runs the main class named by its first argument with
 * the rest, and when the JVM exits (a shutdown hook: {@code System.exit}, the end of main, SIGTERM; not SIGKILL or
 * {@code halt}) checks that no pooled thread waiting for work has something bound that it did not have when main
 * started. It says so on stderr, {@value #PREFIX}{@code clean} or {@value #PREFIX}{@code LEAK ...}; the parent test
 * fails on the second. Before main it says {@value #ARMED}, so the parent knows a verdict is owed: a child that said
 * that and ended on its own without a verdict (the check threw, or {@code halt}) fails too, where one that never got
 * here (the JVM or an agent refused to start) owes nothing. Needs {@code --add-opens java.base/java.lang=ALL-UNNAMED},
 * as the test JVMs do.
 */
public final class LeakCheckedMain {

    /** The start of the line the check prints on stderr. */
    public static final String PREFIX = "fenced-leak-check: ";

    /** The line said on stderr once the check is in place, before the child's own main runs. */
    public static final String ARMED = PREFIX + "armed";

    private LeakCheckedMain() {}

    public static void main(String[] args) throws Throwable {
        String mainClass = args[0];
        LeakCheck check = LeakCheck.begin(ContextAccess.threadLocal());
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            String leak = check.end("the child JVM's " + mainClass);
                            System.err.println(PREFIX + (leak == null ? "clean" : "LEAK " + leak));
                            System.err.flush();
                        },
                        "fenced-leak-check"));
        System.err.println(ARMED);
        System.err.flush();
        Method main = Class.forName(mainClass, true, ClassLoader.getSystemClassLoader())
                .getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The leak the child reported on stderr, or null when it reported none (or was killed before it could). */
    public static String leakIn(Iterable<String> stderr) {
        for (String line : stderr) {
            if (line.startsWith(PREFIX + "LEAK")) {
                return line.substring(PREFIX.length());
            }
        }
        return null;
    }

    /**
     * True when the child armed the check and has said no verdict: it ended without running the check. A child that
     * never armed it (it did not run under this class, or never reached it) owes none.
     */
    public static boolean verdictOwed(Iterable<String> stderr) {
        boolean armed = false;
        for (String line : stderr) {
            if (line.equals(PREFIX + "clean") || line.startsWith(PREFIX + "LEAK")) {
                return false;
            }
            armed |= line.equals(ARMED);
        }
        return armed;
    }
}
