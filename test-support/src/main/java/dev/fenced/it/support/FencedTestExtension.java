package dev.fenced.it.support;

import dev.fenced.internal.context.ContextAccess;
import dev.fenced.it.leak.LeakCheck;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * What a test of fenced needs from its surroundings, in one place:
 * <ul>
 *   <li>the test database: a {@link TestDatabase} parameter (of a {@code @BeforeAll}, {@code @BeforeEach} or test
 *       method) is a fresh database, one per test class (a {@code @Nested} class has its own). It is not dropped
 *       after the class: a lease manager a test left open may still renew there, and must not start failing;</li>
 *   <li>clean thread state: the test thread has no token bound when each test starts, and none after it, whatever
 *       the test (or a lease it acquired and never closed) left bound;</li>
 *   <li>the suite-wide invariant ({@link LeakCheck}): a test fails when, after it, a pooled thread waiting for its
 *       next task (the test's, fenced's, the JVM's) has something bound that it did not have before the test. The
 *       count of tests checked and of leaks is appended to {@code target/fenced-leak-check.txt} at the JVM's exit.
 *       Needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} (the parent pom's surefire and failsafe set it).</li>
 * </ul>
 * Every test module that runs fenced code registers it for every test (junit-platform.properties enables extension
 * autodetection, META-INF/services names this class); the driver's own tests, which cannot depend on this module,
 * have a test extension of their own on the same {@link LeakCheck}.
 * Use with {@code @ExtendWith(FencedTestExtension.class)}. Code that runs on a test's other threads, or in a child
 * JVM's main, uses the static helpers ({@link #unbind()}, {@link #carry(Runnable)}) instead of the driver's
 * internals, so that the tests reach into the binding's representation here only.
 */
public final class FencedTestExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(FencedTestExtension.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        unbind(); // a test that ran earlier on this thread without the extension may have left a lease bound
        LeakCheck.summaryAtExit(Path.of("target", "fenced-leak-check.txt"));
        context.getStore(NAMESPACE).put(LeakCheck.class, LeakCheck.begin(ContextAccess.threadLocal()));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        unbind();
        LeakCheck check = context.getStore(NAMESPACE).remove(LeakCheck.class, LeakCheck.class);
        if (check != null) {
            check.endOrFail(context.getRequiredTestClass().getName() + "#"
                    + context.getRequiredTestMethod().getName() + " (" + context.getDisplayName() + ")");
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext classContext =
                context.getTestMethod().isPresent() ? context.getParent().orElseThrow() : context;
        return classContext
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        classContext.getRequiredTestClass(), c -> TestDatabase.create(), TestDatabase.class);
    }

    /** Leaves nothing bound on the calling thread: what a lease acquired or a scope left open there had bound. */
    public static void unbind() {
        ContextAccess.swap(null);
    }

    /**
     * {@code work} to be run on another thread with the calling thread's binding (the same cell, as the agent and
     * context propagation hand it over), leaving nothing bound there afterwards.
     */
    public static Runnable carry(Runnable work) {
        AtomicLong cell = ContextAccess.current();
        return () -> {
            ContextAccess.swap(cell);
            try {
                work.run();
            } finally {
                unbind();
            }
        };
    }

    /**
     * The raw cell bound to the calling thread, or null: only for tests of the binding's own layout (a lost lease
     * leaves its cell bound and poisoned); everything else asks {@code Fencing.currentToken()}.
     */
    public static AtomicLong boundCell() {
        return ContextAccess.current();
    }
}
