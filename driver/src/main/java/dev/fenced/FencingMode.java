package dev.fenced;

import java.util.Locale;

/** How fenced treats writes to a protected table. */
public enum FencingMode {
    /** Fence every write; refuse what cannot be fenced or carries no token. The default. */
    ENFORCE,
    /**
     * Roll-out mode: writes carry the token when one is bound (the fence column keeps the highest), but
     * nothing is refused; unfenced and unfenceable writes are counted and logged.
     */
    OBSERVE,
    /** Leave the table alone. */
    OFF;

    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static FencingMode parse(String value) {
        for (FencingMode m : values()) {
            if (m.key().equalsIgnoreCase(value.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("expected one of enforce, observe, off but got '" + value + "'");
    }
}
