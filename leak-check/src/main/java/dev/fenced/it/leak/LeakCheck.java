package dev.fenced.it.leak;

import java.io.IOException;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The tests' suite-wide invariant (issue 25): after a test, no thread waiting for work in a pool (a
 * {@code ThreadPoolExecutor}'s, a scheduler's, a {@code ForkJoinPool}'s: the test's, fenced's, the application's,
 * the JVM's common pool) has anything bound, since its next, unrelated task would run with it. A binding such a
 * thread did not have, identically, before the test is the test's leak. The JUnit extensions of the test modules
 * ({@code FencedTestExtension}, and the driver's own test extension) call {@link #begin} and {@link #end}.
 *
 * <p>Other threads' bindings are read from their thread-local maps by reflection, read only (never through
 * {@code ThreadLocalMap}'s methods, which expunge stale entries of the map they read): the test JVM must run with
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED}. Without it the check fails the test, naming the option,
 * rather than passing unchecked.
 *
 * <p>For fenced's own tests only, in a module of its own (never published) so that the driver's tests and
 * test-support's extension share it without a dependency cycle and without test code in the driver's jar. It does
 * not depend on the driver: the extensions hand it the driver's thread-local ({@code ContextAccess.threadLocal()}).
 */
public final class LeakCheck {

    private static final AtomicInteger CHECKED = new AtomicInteger();
    private static final AtomicInteger CAUGHT = new AtomicInteger();
    private static final AtomicBoolean SUMMARY_HOOKED = new AtomicBoolean();

    /** Where a pooled thread waits for its next task. */
    private static final String[][] IDLE = {
        {"java.util.concurrent.ThreadPoolExecutor", "getTask"},
        {"java.util.concurrent.ForkJoinPool", "awaitWork"},
    };

    /** The value a cell bound inside {@code Fencing.unfenced} holds ({@code TokenCells.UNFENCED}). */
    static final long UNFENCED = 0L;

    private final ThreadLocal<AtomicLong> binding;
    private final Map<Thread, AtomicLong> before;

    private LeakCheck(ThreadLocal<AtomicLong> binding) {
        this.binding = binding;
        this.before = idleBound(binding);
    }

    /**
     * Before a test: what idle pooled threads have bound now (not the test's doing).
     *
     * @param binding the thread-local fenced binds a token cell to ({@code ContextAccess.threadLocal()})
     */
    public static LeakCheck begin(ThreadLocal<AtomicLong> binding) {
        return new LeakCheck(binding);
    }

    /**
     * After {@code test}: null, or why it fails (each idle pooled thread that has something bound it did not have
     * before, and what).
     */
    public @Nullable String end(String test) {
        CHECKED.incrementAndGet();
        List<String> leaks = leaks();
        if (leaks.isEmpty()) {
            return null;
        }
        CAUGHT.incrementAndGet();
        return "fenced leak check: after " + test + ", " + String.join("; ", leaks)
                + ": a pooled thread's next, unrelated task would run with it";
    }

    /** {@link #end}, failing the test (an {@link AssertionError}, as a test framework reports it) on a leak. */
    public void endOrFail(String test) {
        String leak = end(test);
        if (leak != null) {
            throw new AssertionError(leak);
        }
    }

    /** Each idle pooled thread that has something bound it did not have at {@link #begin}, and what. */
    public List<String> leaks() {
        List<String> leaks = new ArrayList<>();
        idleBound(binding).forEach((thread, cell) -> {
            if (before.get(thread) != cell) {
                leaks.add("thread '" + thread.getName() + "' (waiting for its next task) has " + describe(cell.get())
                        + " bound");
            }
        });
        return leaks;
    }

    /** How many tests were checked in this JVM, and how many of them leaked. */
    public static String summary() {
        return "fenced leak check: " + CHECKED.get() + " tests checked, " + CAUGHT.get() + " leaked";
    }

    /**
     * Appends {@link #summary()} to {@code file} when this JVM exits (one line per test JVM); called again, does
     * nothing. The extensions call it when a test starts, so a child JVM whose main only uses their helpers writes
     * nothing.
     */
    public static void summaryAtExit(Path file) {
        if (!SUMMARY_HOOKED.compareAndSet(false, true)) {
            return;
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                Files.createDirectories(file.toAbsolutePath().getParent());
                                Files.writeString(
                                        file,
                                        summary() + System.lineSeparator(),
                                        StandardCharsets.UTF_8,
                                        StandardOpenOption.CREATE,
                                        StandardOpenOption.APPEND);
                            } catch (IOException e) {
                                System.err.println(summary() + " (not written to " + file + ": " + e + ")");
                            }
                        },
                        "fenced-leak-check-summary"));
    }

    /** What a cell's value means (the driver's encoding: a lost lease's cell holds its token negated). */
    static String describe(long value) {
        if (value > 0) {
            return "lease token " + value;
        }
        if (value == UNFENCED) {
            return "an unfenced section's marker";
        }
        return "lost lease token " + -value + " (poisoned)";
    }

    /** The idle pooled threads with something bound, and what. */
    private static Map<Thread, AtomicLong> idleBound(ThreadLocal<AtomicLong> binding) {
        Map<Thread, AtomicLong> bound = new IdentityHashMap<>();
        Thread self = Thread.currentThread();
        for (Map.Entry<Thread, StackTraceElement[]> t :
                Thread.getAllStackTraces().entrySet()) {
            if (t.getKey() == self || !idle(t.getValue())) {
                continue;
            }
            AtomicLong cell = boundTo(t.getKey(), binding);
            if (cell != null) {
                bound.put(t.getKey(), cell);
            }
        }
        return bound;
    }

    private static boolean idle(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            for (String[] idle : IDLE) {
                if (frame.getClassName().equals(idle[0])
                        && frame.getMethodName().equals(idle[1])) {
                    return true;
                }
            }
        }
        return false;
    }

    /** What {@code thread} has bound, read from its thread-local map without changing it. */
    private static @Nullable AtomicLong boundTo(Thread thread, ThreadLocal<AtomicLong> current) {
        if (FIELDS == null) {
            throw new IllegalStateException(UNREADABLE);
        }
        try {
            Object map = FIELDS[0].get(thread);
            if (map == null) {
                return null;
            }
            for (Object entry : (Object[]) FIELDS[1].get(map)) {
                if (entry != null && ((Reference<?>) entry).get() == current) {
                    return (AtomicLong) FIELDS[2].get(entry);
                }
            }
            return null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(UNREADABLE, e);
        }
    }

    private static final String UNREADABLE = "fenced leak check: cannot read other threads' bindings: run the test JVM"
            + " with --add-opens java.base/java.lang=ALL-UNNAMED";

    /** Thread.threadLocals, ThreadLocalMap.table, ThreadLocalMap.Entry.value; null when not accessible. */
    private static final Field @Nullable [] FIELDS = open();

    private static Field @Nullable [] open() {
        try {
            Field[] fields = {
                Thread.class.getDeclaredField("threadLocals"),
                Class.forName("java.lang.ThreadLocal$ThreadLocalMap").getDeclaredField("table"),
                Class.forName("java.lang.ThreadLocal$ThreadLocalMap$Entry").getDeclaredField("value")
            };
            for (Field f : fields) {
                f.setAccessible(true);
            }
            return fields;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // InaccessibleObjectException without the --add-opens
        }
    }
}
