package dev.fenced.internal.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The lease table's name as configured ({@code fenced_lease}, {@code locks.job_lease},
 * {@code "Locks"."Leases"}) and the names derived from it. Every part is rendered quoted, after folding
 * unquoted parts to lower case the way PostgreSQL does, so the configured text can never inject SQL and
 * always names the same table PostgreSQL would; control and line-breaking characters are refused even in quoted
 * parts.
 */
public final class LeaseTableName {

    /** Suffix of the token sequence: the contract is {@code <table>_token_seq}, in the table's schema. */
    static final String SEQUENCE_SUFFIX = "_token_seq";

    /**
     * Suffix of the index on the token column, {@code <table>_token_idx} in the table's schema: as long as the
     * sequence's, so a name short enough for the one is short enough for the other.
     */
    static final String TOKEN_INDEX_SUFFIX = "_token_idx";

    /** PostgreSQL's NAMEDATALEN - 1. */
    private static final int MAX_IDENTIFIER_BYTES = 63;

    private final @Nullable String schema; // null when unqualified: the search_path decides, as for any table
    private final String table;

    private LeaseTableName(@Nullable String schema, String table) {
        this.schema = schema;
        this.table = table;
    }

    /**
     * Parses {@code [schema.]table}; unquoted parts are letters, digits, {@code _} and {@code $} and fold to
     * lower case, quoted parts are exact ({@code ""} stands for a quote).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static LeaseTableName parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("fenced: the lease table name is empty");
        }
        List<String> parts = new ArrayList<>(2);
        String t = text.trim();
        int i = 0;
        while (true) {
            StringBuilder part = new StringBuilder();
            if (i < t.length() && t.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= t.length()) {
                        throw bad(text, "an unterminated quoted name");
                    }
                    char c = t.charAt(i++);
                    if (c == '"') {
                        if (i < t.length() && t.charAt(i) == '"') {
                            part.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else if (breaksText(c)) {
                        throw bad(
                                text,
                                String.format(
                                        "a control or line-breaking character (U+%04X) in a quoted name", (int) c));
                    } else {
                        part.append(c);
                    }
                }
                if (part.length() == 0) {
                    throw bad(text, "an empty quoted name");
                }
            } else {
                int start = i;
                while (i < t.length() && isIdentifierChar(t.charAt(i), i == start)) {
                    i++;
                }
                if (i == start) {
                    throw bad(text, "a character that is not allowed in an unquoted name at position " + (i + 1));
                }
                part.append(t.substring(start, i).toLowerCase(Locale.ROOT));
            }
            parts.add(part.toString());
            if (i == t.length()) {
                break;
            }
            if (t.charAt(i) != '.') {
                throw bad(text, "a character that is not allowed in an unquoted name at position " + (i + 1));
            }
            i++;
        }
        if (parts.size() > 2) {
            throw bad(text, "more than two parts (expected table or schema.table)");
        }
        String table = parts.get(parts.size() - 1);
        if (table.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + SEQUENCE_SUFFIX.length()
                > MAX_IDENTIFIER_BYTES) {
            // PostgreSQL would silently truncate <table>_token_seq, and two tables could share a sequence.
            throw bad(
                    text,
                    "a table name longer than " + (MAX_IDENTIFIER_BYTES - SEQUENCE_SUFFIX.length())
                            + " bytes, too long for its sequence name " + table + SEQUENCE_SUFFIX);
        }
        return parts.size() == 1
                ? new LeaseTableName(null, parts.get(0))
                : new LeaseTableName(parts.get(0), parts.get(1));
    }

    /**
     * Characters a name may not hold even quoted: controls, line and paragraph separators and invisible format
     * characters. A name is substituted into SQL text; one that ends a line could end a comment there.
     */
    private static boolean breaksText(char c) {
        int type = Character.getType(c);
        return Character.isISOControl(c)
                || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.FORMAT;
    }

    private static boolean isIdentifierChar(char c, boolean first) {
        boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        return first ? letter : letter || (c >= '0' && c <= '9') || c == '$';
    }

    private static IllegalArgumentException bad(String text, String what) {
        return new IllegalArgumentException("fenced: lease table name '" + text + "' has " + what
                + "; write table or schema.table, quoting parts with \"...\" if they need it");
    }

    /** The schema as written (folded), or null when the name is unqualified. */
    public @Nullable String schemaName() {
        return schema;
    }

    /** The table's own name (folded, unquoted). */
    public String tableName() {
        return table;
    }

    /**
     * This name in {@code schemaName} when it is unqualified: {@code install} creates the store schema-qualified,
     * so that nothing it writes depends on the administrator's search_path.
     */
    public LeaseTableName in(String schemaName) {
        return schema != null ? this : new LeaseTableName(schemaName, table);
    }

    /** The table, ready for SQL text: {@code "locks"."job_lease"}. */
    public String table() {
        return qualify(table);
    }

    /** The token sequence, ready for SQL text: {@code "locks"."job_lease_token_seq"}. */
    public String sequence() {
        return qualify(table + SEQUENCE_SUFFIX);
    }

    /**
     * The index on the token column, unqualified as {@code CREATE INDEX} wants it (an index lives in its table's
     * schema): {@code "job_lease_token_idx"}.
     */
    public String tokenIndex() {
        return quote(table + TOKEN_INDEX_SUFFIX);
    }

    /** The sequence as a string literal for {@code nextval(...)}/{@code to_regclass(...)}. */
    public String sequenceLiteral() {
        return literal(sequence());
    }

    /** The table as a string literal for {@code to_regclass(...)}. */
    public String tableLiteral() {
        return literal(table());
    }

    private String qualify(String name) {
        return schema == null ? quote(name) : quote(schema) + "." + quote(name);
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    @Override
    public String toString() {
        return table();
    }
}
