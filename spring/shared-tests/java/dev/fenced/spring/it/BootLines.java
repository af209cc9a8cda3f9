package dev.fenced.spring.it;

/** Auto-configurations Boot 4 moved to another package, found by name on whichever Boot line runs the tests. */
final class BootLines {

    private BootLines() {
    }

    static Class<?> quartzAutoConfiguration() {
        return first("org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration", // Boot 4
                "org.springframework.boot.autoconfigure.quartz.QuartzAutoConfiguration"); // Boot 3
    }

    private static Class<?> first(String... names) {
        for (String name : names) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // the other Boot line
            }
        }
        throw new IllegalStateException("none of " + String.join(", ", names) + " is on the class path");
    }
}
