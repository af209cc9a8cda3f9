package dev.fenced.internal.sql;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Guards against JSqlParser printing something that means other than what it read. Re-parsing cannot see
 * this (it is idempotent on the wrong text), so the printed statement, lexed exactly as PostgreSQL lexes it,
 * must be the original's tokens in the same order: parentheses and punctuation included, since a dropped or
 * moved parenthesis changes what an expression computes. Allowed: the case of unquoted words (keywords print
 * upper case), an {@code AS} JSqlParser adds or drops before an alias, and statement separators (the number
 * of statements is checked on its own).
 */
final class FidelityCheck {

    private FidelityCheck() {}

    /**
     * Null when {@code printed} is {@code original} token for token; otherwise the first difference. The
     * original's {@code ?} are compared as the {@code ?1 ?2 ...} the parser was given.
     */
    static @Nullable String difference(List<Token> original, List<Token> printed) {
        int i = 0;
        int j = 0;
        int param = 0;
        while (i < original.size() || j < printed.size()) {
            Token a = i < original.size() ? original.get(i) : null;
            Token b = j < printed.size() ? printed.get(j) : null;
            String ka = a == null
                    ? null
                    : a.kind() == Token.Kind.PARAMETER && a.text().equals("?")
                            ? Token.Kind.PARAMETER + "?" + (param + 1)
                            : key(a);
            String kb = b == null ? null : key(b);
            if (a != null && ka != null && ka.equals(kb)) {
                if (a.kind() == Token.Kind.PARAMETER) {
                    param++;
                }
                i++;
                j++;
            } else if (a != null && (a.isWord("AS") || a.isSymbol(";"))) {
                i++;
            } else if (b != null && (b.isWord("AS") || b.isSymbol(";"))) {
                j++;
            } else {
                return "the SQL parser would change the statement ("
                        + (a == null
                                ? "adds `" + java.util.Objects.requireNonNull(b).text() + "` at the end"
                                : b == null
                                        ? "drops `" + a.text() + "` at the end"
                                        : "`" + a.text() + "` at offset " + a.start() + " becomes `" + b.text() + "`")
                        + ")";
            }
        }
        return null;
    }

    private static String key(Token t) {
        return t.kind() == Token.Kind.WORD
                ? t.kind() + t.text().toUpperCase(java.util.Locale.ROOT)
                : t.kind() + t.text();
    }
}
