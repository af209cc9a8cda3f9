package dev.fenced.internal.context;

import dev.fenced.it.leak.LeakCheck;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The suite-wide invariant ({@link LeakCheck}) around every driver unit test (registered through
 * junit-platform.properties and META-INF/services): the test fails when, after it, a pooled thread waiting for its
 * next task has something bound that it did not have before. The driver's tests cannot use test-support's
 * {@code FencedTestExtension} (test-support depends on the driver), so this is its glue over the same check.
 */
public final class LeakCheckExtension implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LeakCheckExtension.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        LeakCheck.summaryAtExit(Path.of("target", "fenced-leak-check.txt"));
        context.getStore(NAMESPACE).put(LeakCheck.class, LeakCheck.begin(ContextAccess.threadLocal()));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        LeakCheck check = context.getStore(NAMESPACE).remove(LeakCheck.class, LeakCheck.class);
        if (check != null) {
            check.endOrFail(context.getRequiredTestClass().getName() + "#"
                    + context.getRequiredTestMethod().getName() + " (" + context.getDisplayName() + ")");
        }
    }
}
