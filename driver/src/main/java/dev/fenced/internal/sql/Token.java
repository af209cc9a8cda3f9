package dev.fenced.internal.sql;

import org.jspecify.annotations.Nullable;

/**
 * One lexical token of a SQL text. {@code start}/{@code end} index the source; {@code text} is the
 * token as written.
 *
 * <p>The text is cut from the source only when asked for: a fenced text is lexed several times over (strictly,
 * with {@code standard_conforming_strings} off, as pgjdbc sends it) and most of those tokens are only compared by
 * kind and place, or against a keyword in the source itself, so a substring per token was most of what lexing
 * allocated. Equality is the record's it replaces: kind, text and span.
 */
final class Token {

    enum Kind {
        /** Unquoted identifier or keyword. */
        WORD,
        /** {@code "quoted identifier"} or {@code U&"..."}. */
        QUOTED_IDENTIFIER,
        /** Any string constant: {@code '...'}, {@code E'...'}, {@code U&'...'}, {@code $tag$...$tag$}, B/X strings. */
        STRING,
        NUMBER,
        /** A JDBC parameter: {@code ?}, or {@code ?N} once numbered. */
        PARAMETER,
        /** {@code $1}: a server-side positional parameter written by the user. */
        POSITIONAL_PARAMETER,
        /** Operators and punctuation. */
        SYMBOL
    }

    /** Each ASCII character as a string of its own: one shared string per one-character token. */
    private static final String[] ONE_CHARACTER = new String[128];

    static {
        for (char c = 0; c < ONE_CHARACTER.length; c++) {
            ONE_CHARACTER[c] = String.valueOf(c);
        }
    }

    private final Kind kind;
    private final String source;
    private final int start;
    private final int end;
    /** Cut on first use (a benign race: any thread cuts the same string). */
    private @Nullable String text;

    Token(Kind kind, String source, int start, int end) {
        this.kind = kind;
        this.source = source;
        this.start = start;
        this.end = end;
    }

    Kind kind() {
        return kind;
    }

    int start() {
        return start;
    }

    int end() {
        return end;
    }

    /** The token as written. */
    String text() {
        String t = text;
        if (t == null) {
            char c = source.charAt(start);
            t = end == start + 1 && c < ONE_CHARACTER.length ? ONE_CHARACTER[c] : source.substring(start, end);
            text = t;
        }
        return t;
    }

    boolean isWord(String keyword) {
        return kind == Kind.WORD && spelled(keyword, true);
    }

    boolean isSymbol(String symbol) {
        return kind == Kind.SYMBOL && spelled(symbol, false);
    }

    /** Written exactly as {@code other} is (the same characters, whatever the kinds), compared in place. */
    boolean sameText(Token other) {
        return end - start == other.end - other.start
                && source.regionMatches(start, other.source, other.start, end - start);
    }

    /** Written as {@code s} ({@code ignoreCase}: as {@link String#equalsIgnoreCase} compares), without a copy. */
    private boolean spelled(String s, boolean ignoreCase) {
        int n = s.length();
        if (end - start != n) {
            return false;
        }
        // compared here for ASCII: the planner asks this of nearly every token several times over, and
        // regionMatches was a tenth of a new MERGE's plan; a character outside ASCII goes to regionMatches, whose
        // case mapping folds some of them onto ASCII letters (the Kelvin sign, the dotless i)
        for (int i = 0; i < n; i++) {
            char a = source.charAt(start + i);
            char b = s.charAt(i);
            if (a == b) {
                continue;
            }
            if (a >= 0x80 || b >= 0x80) {
                return source.regionMatches(ignoreCase, start, s, 0, n);
            }
            if (!ignoreCase || !isAsciiLetter(a) || (a | 0x20) != (b | 0x20)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiLetter(char c) {
        char lower = (char) (c | 0x20);
        return lower >= 'a' && lower <= 'z';
    }

    /** Every character of the token is ASCII. */
    boolean isAscii() {
        for (int i = start; i < end; i++) {
            if (source.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** {@code U&"..."}: a name whose escapes can spell any other name without containing it. */
    boolean isUnicodeEscapedName() {
        return kind == Kind.QUOTED_IDENTIFIER && end - start >= 2 && source.regionMatches(true, start, "U&", 0, 2);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Token t && kind == t.kind && start == t.start && end == t.end && sameText(t);
    }

    @Override
    public int hashCode() {
        return (kind.hashCode() * 31 + text().hashCode()) * 31 * 31 + start * 31 + end;
    }

    @Override
    public String toString() {
        return "Token[kind=" + kind + ", text=" + text() + ", start=" + start + ", end=" + end + "]";
    }
}
