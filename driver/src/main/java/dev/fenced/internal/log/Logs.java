package dev.fenced.internal.log;

import java.util.Locale;

/**
 * The one place fenced's loggers come from. An application that logs through SLF4J (Logback, Log4j 2, a Boot
 * application) gets fenced's records in its own log, one line each, without a JUL bridge; any other gets
 * {@link System.Logger}. SLF4J counts only with a provider bound: slf4j-api alone (which some libraries bring)
 * would drop every record, so then System.Logger is used. The choice is made once, at the first logger.
 *
 * <p>The system property {@value #PROPERTY} ({@code slf4j}, {@code system}) forces the choice; it is not a
 * {@code fenced.*} configuration key because it is read before any configuration, once per JVM.
 */
public final class Logs {

    /** Forces the backend: {@code slf4j} or {@code system}; anything else (or unset) chooses by the class path. */
    public static final String PROPERTY = "dev.fenced.log";

    private static final boolean SLF4J = chooseSlf4j();

    private Logs() {}

    /** The logger of that name, through SLF4J or System.Logger (see the class comment). */
    public static System.Logger get(String name) {
        return SLF4J ? Slf4jLogger.of(name) : System.getLogger(name);
    }

    /** True when records go to SLF4J. */
    public static boolean throughSlf4j() {
        return SLF4J;
    }

    private static boolean chooseSlf4j() {
        String forced = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        if (forced.equals("system")) {
            return false;
        }
        boolean present;
        try {
            Class.forName("org.slf4j.LoggerFactory", false, Logs.class.getClassLoader());
            present = true;
        } catch (ClassNotFoundException | LinkageError e) {
            present = false;
        }
        if (!present) {
            return false;
        }
        return forced.equals("slf4j") || Slf4jLogger.providerBound();
    }
}
