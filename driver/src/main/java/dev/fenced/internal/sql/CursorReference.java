package dev.fenced.internal.sql;

import java.util.List;
import java.util.Locale;

/**
 * {@code UPDATE ... WHERE CURRENT OF <cursor>}: the guard sits in the SET list, so it holds whatever the WHERE
 * is, and a cursor's current row is fenced like any other. JSqlParser cannot read {@code CURRENT OF}: the lexical
 * stage puts a placeholder column in its place ({@code WHERE fenced_current_of_0}) and the printed statement gets
 * the cursor back, token for token. Only a whole UPDATE WHERE clause qualifies; a DELETE's check needs a WHERE of
 * its own to join, so {@code DELETE ... WHERE CURRENT OF} stays refused.
 */
final class CursorReference {

    static final String PREFIX = "fenced_current_of_";

    private CursorReference() {}

    static String placeholder(int n) {
        return PREFIX + n;
    }

    /**
     * True when {@code tokens[i..i+2]} is {@code CURRENT OF <name>} right after the WHERE of an UPDATE (the nearest
     * data-modifying keyword before it) and is the whole WHERE: followed by the end, a {@code ;} or RETURNING.
     */
    static boolean startsAt(List<Token> tokens, int i) {
        if (!tokens.get(i).isWord("CURRENT")
                || i + 2 >= tokens.size()
                || !tokens.get(i + 1).isWord("OF")
                || i == 0
                || !tokens.get(i - 1).isWord("WHERE")) {
            return false;
        }
        Token name = tokens.get(i + 2);
        if (name.kind() != Token.Kind.WORD && name.kind() != Token.Kind.QUOTED_IDENTIFIER) {
            return false;
        }
        if (i + 3 < tokens.size()
                && !tokens.get(i + 3).isSymbol(";")
                && !tokens.get(i + 3).isWord("RETURNING")) {
            return false;
        }
        int depth = 0;
        for (int k = i - 1; k >= 0; k--) {
            Token t = tokens.get(k);
            if (t.isSymbol(")")) {
                depth++;
            } else if (t.isSymbol("(")) {
                if (depth-- == 0) {
                    return false; // inside parentheses: not a statement's own WHERE
                }
            } else if (depth == 0 && t.kind() == Token.Kind.WORD) {
                String w = t.text().toUpperCase(Locale.ROOT);
                if (w.equals("UPDATE")) {
                    return true;
                }
                if (w.equals("DELETE") || w.equals("INSERT") || w.equals("MERGE") || w.equals("SELECT")) {
                    return false;
                }
            } else if (t.isSymbol(";")) {
                return false;
            }
        }
        return false;
    }

    /** Puts {@code WHERE CURRENT OF <cursor>} back for each placeholder in {@code printed}. */
    static String restore(String printed, List<String> cursors, String table) throws Refusal {
        if (cursors.isEmpty()) {
            return printed;
        }
        StringBuilder out = new StringBuilder(printed.length() + 16);
        int copied = 0;
        int seen = 0;
        for (Token t : SqlLexer.tokenize(printed)) {
            if (t.kind() == Token.Kind.WORD && t.text().startsWith(PREFIX)) {
                int n = Integer.parseInt(t.text().substring(PREFIX.length()));
                out.append(printed, copied, t.start()).append("CURRENT OF ").append(cursors.get(n));
                copied = t.end();
                seen++;
            }
        }
        if (seen != cursors.size()) {
            throw new Refusal(table, "the cursor reference (WHERE CURRENT OF) was lost in printing");
        }
        return out.append(printed, copied, printed.length()).toString();
    }
}
