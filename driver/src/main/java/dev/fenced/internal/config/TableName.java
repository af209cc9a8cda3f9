package dev.fenced.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A relation name as PostgreSQL resolves it: unquoted parts fold to lower case, quoted parts are exact.
 * {@code schema} is null for an unqualified name.
 */
public final class TableName {

    private final @Nullable String schema;
    private final String name;

    /** {@link #toString}, kept: messages and plans ask a protected table's name of every new text (a benign race). */
    private @Nullable String spelled;

    public TableName(@Nullable String schema, String name) {
        this.schema = schema;
        this.name = Objects.requireNonNull(name, "name");
    }

    public @Nullable String schema() {
        return schema;
    }

    public String name() {
        return name;
    }

    /**
     * Parses a possibly qualified, possibly quoted name as written in SQL or in {@code fenced.tables}:
     * {@code totals}, {@code Sales.Totals}, {@code "Sales"."Totals"}. A database part ({@code db.s.t}) is
     * dropped, as PostgreSQL only accepts the current database there.
     *
     * @throws IllegalArgumentException for an empty or malformed name
     */
    public static TableName parse(String text) {
        List<String> parts = parseParts(text);
        if (parts.isEmpty() || parts.size() > 3) {
            throw new IllegalArgumentException("'" + text + "' is not a table name");
        }
        String n = parts.get(parts.size() - 1);
        String s = parts.size() >= 2 ? parts.get(parts.size() - 2) : null;
        return new TableName(s, n);
    }

    /** Splits a dotted identifier chain and applies PostgreSQL's folding to each part. */
    public static List<String> parseParts(String text) {
        List<String> parts = new ArrayList<>();
        String t = text.trim();
        int i = 0;
        while (i <= t.length()) {
            if (i == t.length()) {
                throw new IllegalArgumentException("'" + text + "' is not a table name");
            }
            StringBuilder part = new StringBuilder();
            if (t.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= t.length()) {
                        throw new IllegalArgumentException("unterminated quoted identifier in '" + text + "'");
                    }
                    char c = t.charAt(i);
                    if (c == '"') {
                        if (i + 1 < t.length() && t.charAt(i + 1) == '"') {
                            part.append('"');
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    part.append(c);
                    i++;
                }
                if (part.length() == 0) {
                    throw new IllegalArgumentException("empty quoted identifier in '" + text + "'");
                }
            } else {
                int start = i;
                while (i < t.length() && t.charAt(i) != '.' && t.charAt(i) != '"') {
                    i++;
                }
                String raw = t.substring(start, i).trim();
                if (raw.isEmpty() || !isPlainIdentifier(raw)) {
                    throw new IllegalArgumentException("'" + text + "' is not a table name");
                }
                part.append(foldAscii(raw));
            }
            parts.add(part.toString());
            while (i < t.length() && Character.isWhitespace(t.charAt(i))) {
                i++;
            }
            if (i == t.length()) {
                break;
            }
            if (t.charAt(i) != '.') {
                throw new IllegalArgumentException("'" + text + "' is not a table name");
            }
            i++;
            while (i < t.length() && Character.isWhitespace(t.charAt(i))) {
                i++;
            }
        }
        return parts;
    }

    /** Folds one identifier as written in SQL ({@code "Totals"} stays, {@code Totals} becomes totals). */
    public static String fold(String identifier) {
        if (identifier.length() >= 2 && identifier.startsWith("\"") && identifier.endsWith("\"")) {
            return identifier.substring(1, identifier.length() - 1).replace("\"\"", "\"");
        }
        return foldAscii(identifier);
    }

    /**
     * PostgreSQL's folding of an unquoted name in a UTF-8 database: A-Z only ({@code ÄPFEL} becomes
     * {@code Äpfel}). A single-byte database also lowers other letters, which {@link #sameName} allows for.
     */
    static String foldAscii(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                if (b == null) {
                    b = new StringBuilder(s);
                }
                b.setCharAt(i, (char) (c + ('a' - 'A')));
            }
        }
        return b == null ? s : b.toString();
    }

    /**
     * Whether two folded names may be the same relation. Exact, except that names with non-ASCII letters
     * also match ignoring case: whether the server folds those depends on its encoding, and missing a
     * protected table is the failure to avoid (fencing one by mistake fails loudly on its missing column).
     */
    public static boolean sameName(String a, String b) {
        if (isShortAscii(a) && isShortAscii(b)) {
            // neither is truncated, and ASCII names match exactly: what the three comparisons below come to
            return a.equals(b);
        }
        return sameStored(a, b)
                || sameStored(truncated(a, true), truncated(b, true))
                || sameStored(truncated(a, false), truncated(b, false));
    }

    private static boolean sameStored(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        return (hasNonAscii(a) || hasNonAscii(b)) && a.equalsIgnoreCase(b);
    }

    /** NAMEDATALEN - 1: the bytes PostgreSQL keeps of an identifier. */
    static final int MAX_IDENTIFIER_BYTES = 63;

    /**
     * {@code name} as PostgreSQL stores it (scan.l's truncate_identifier): a longer identifier, quoted or not,
     * is silently cut to 63 bytes at a character boundary, so {@code UPDATE <the 63-character name>xyz} writes the
     * protected table. Bytes are counted in UTF-8 ({@code utf8}) or one a character (a single-byte encoding);
     * {@link #sameName} tries both, as it does not know the database's encoding.
     */
    public static String truncated(String name, boolean utf8) {
        int bytes = 0;
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            int width = !utf8 || cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + width > MAX_IDENTIFIER_BYTES) {
                return name.substring(0, i);
            }
            bytes += width;
            i += Character.charCount(cp);
        }
        return name;
    }

    /** ASCII and at most {@link #MAX_IDENTIFIER_BYTES} long: {@link #truncated} keeps it whole in either count. */
    private static boolean isShortAscii(String s) {
        return s.length() <= MAX_IDENTIFIER_BYTES && !hasNonAscii(s);
    }

    private static boolean hasNonAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 127) {
                return true;
            }
        }
        return false;
    }

    static boolean isPlainIdentifier(String s) {
        char first = s.charAt(0);
        if (!(Character.isLetter(first) || first == '_')) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '$')) {
                return false;
            }
        }
        return true;
    }

    /** Quotes a folded identifier when SQL needs quotes to mean exactly it. */
    public static String quote(String folded) {
        if (!folded.isEmpty()
                && isPlainIdentifier(folded)
                && folded.equals(foldAscii(folded))
                && !hasNonAscii(folded)
                && !SqlKeywords.needsQuotes(folded)) {
            return folded;
        }
        return '"' + folded.replace("\"", "\"\"") + '"';
    }

    /**
     * Whether a reference written in a statement may resolve to this registered table: a registered
     * unqualified name matches any schema; a qualified one matches the same schema or an unqualified
     * reference (the search path may lead there).
     */
    public boolean matchedBy(TableName reference) {
        if (!sameName(name, reference.name)) {
            return false;
        }
        return schema == null || reference.schema == null || sameName(schema, reference.schema);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableName other && name.equals(other.name) && Objects.equals(schema, other.schema);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, name);
    }

    /** SQL spelling, quoted where needed. */
    @Override
    public String toString() {
        String s = spelled;
        if (s == null) {
            s = schema == null ? quote(name) : quote(schema) + "." + quote(name);
            spelled = s;
        }
        return s;
    }

    /** True when {@code folded} written bare is one of PostgreSQL's keywords that cannot stand as a name everywhere. */
    public static boolean isKeyword(String folded) {
        return SqlKeywords.needsQuotes(folded);
    }
}
