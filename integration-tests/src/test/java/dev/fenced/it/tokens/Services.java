package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/** Lock services the tests need as real servers: skipped here when absent, a failure in CI (.ci/run provides them). */
final class Services {

    private Services() {}

    static void require(boolean available, String why) {
        if (available) {
            return;
        }
        if (System.getenv("CI") != null) {
            fail(why + " (CI is set: .ci/run installs and starts it)");
        }
        Assumptions.abort(why);
    }
}
