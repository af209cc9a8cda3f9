package dev.fenced;

import java.util.Locale;
import java.util.Objects;

/**
 * Lease names made of two parts, such that different parts never make the same name.
 *
 * <p>A name such as {@code quartz:<group>.<name>} is ambiguous when a part may hold the separator: job {@code
 * ("a.b", "c")} and job {@code ("a", "b.c")} would share one lease, and one of two unrelated jobs would be skipped
 * as "busy". {@link #of} escapes the first part ({@code %} as {@code %25}, the separator as {@code %} and its two
 * hex digits), so the first separator in the name always ends it and the last part may hold anything. A first part
 * without {@code %} or the separator is written as it is, so the usual names do not change.
 */
public final class LeaseNames {

    private LeaseNames() {}

    /**
     * {@code <library>:<first, escaped><separator><last>}; for example {@code of("quartz", "DEFAULT", '.',
     * "nightly.totals")} is {@code quartz:DEFAULT.nightly.totals} and {@code of("quartz", "a.b", '.', "c")} is
     * {@code quartz:a%2Eb.c}.
     *
     * @throws IllegalArgumentException if the separator is {@code %} or {@code :}, or the library name holds a
     *     {@code :}
     */
    public static String of(String library, String first, char separator, String last) {
        Objects.requireNonNull(library, "library");
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(last, "last");
        if (separator == '%' || separator == ':') {
            throw new IllegalArgumentException("fenced: a lease name separator cannot be '" + separator + "'");
        }
        if (library.isEmpty() || library.indexOf(':') >= 0) {
            throw new IllegalArgumentException(
                    "fenced: a library name must be non-empty and hold no ':', got '" + library + "'");
        }
        return library + ':' + escape(first, separator) + separator + last;
    }

    private static String escape(String part, char separator) {
        if (part.indexOf('%') < 0 && part.indexOf(separator) < 0) {
            return part;
        }
        StringBuilder out = new StringBuilder(part.length() + 8);
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c == '%' || c == separator) {
                out.append('%').append(String.format(Locale.ROOT, "%02X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
