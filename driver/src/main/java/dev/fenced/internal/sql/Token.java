package dev.fenced.internal.sql;

/**
 * One lexical token of a SQL text. {@code start}/{@code end} index the source; {@code text} is the
 * token as written.
 */
record Token(Kind kind, String text, int start, int end) {

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

    boolean isWord(String keyword) {
        return kind == Kind.WORD && text.equalsIgnoreCase(keyword);
    }

    boolean isSymbol(String symbol) {
        return kind == Kind.SYMBOL && text.equals(symbol);
    }

    /** {@code U&"..."}: a name whose escapes can spell any other name without containing it. */
    boolean isUnicodeEscapedName() {
        return kind == Kind.QUOTED_IDENTIFIER && text.regionMatches(true, 0, "U&", 0, 2);
    }
}
