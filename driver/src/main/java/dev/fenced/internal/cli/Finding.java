package dev.fenced.internal.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One line of a check: what was found, how much it matters, and the SQL that fixes it (or null). */
record Finding(Level level, String text, @Nullable String fix) {

    enum Level {
        /** As it should be. */
        OK,
        /** Worth knowing; needs nothing. */
        INFO,
        /** A write fenced cannot see, or a setting to know about: named, does not block enforce mode. */
        WARN,
        /** Blocks enforce mode: the driver's first connect would fail, or a write would go unfenced. */
        MISSING
    }

    static Finding ok(String text) {
        return new Finding(Level.OK, text, null);
    }

    static Finding info(String text) {
        return new Finding(Level.INFO, text, null);
    }

    static Finding warn(String text) {
        return new Finding(Level.WARN, text, null);
    }

    static Finding missing(String text, @Nullable String fix) {
        return new Finding(Level.MISSING, text, fix);
    }

    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("level", level.name().toLowerCase(java.util.Locale.ROOT));
        m.put("text", text);
        if (fix != null) {
            m.put("fix", fix);
        }
        return m;
    }
}
