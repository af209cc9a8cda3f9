package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.List;

/**
 * What the skeleton readers ({@link UpdateSkeleton}, {@link InsertSkeleton}) need to read a statement as balanced
 * runs of tokens without a parser: brackets, names, and whether a word can be a keyword where it stands.
 */
final class TokenRuns {

    private TokenRuns() {}

    static boolean isName(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    /**
     * A name PostgreSQL reads as a table's alias ({@code ColId}) or a plain table name: quoted, or a word that needs
     * no quotes (no keyword that cannot stand as a name everywhere: not WHERE, USING, RETURNING, JOIN, LATERAL, ONLY,
     * TABLESAMPLE ...).
     */
    static boolean isPlainName(Token t) {
        return t.kind() == Token.Kind.QUOTED_IDENTIFIER
                || t.kind() == Token.Kind.WORD && !TableName.isKeyword(TableName.fold(t.text()));
    }

    /** Every {@code (} and {@code [} closed, in order. */
    static boolean balanced(List<Token> tokens) {
        int depth = 0;
        for (Token t : tokens) {
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if ((t.isSymbol(")") || t.isSymbol("]")) && --depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }

    /** The index of the bracket closing the one at {@code open}, in {@link #balanced} tokens. */
    static int closing(List<Token> tokens, int open) {
        int depth = 0;
        for (int k = open; k < tokens.size(); k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if ((t.isSymbol(")") || t.isSymbol("]")) && --depth == 0) {
                return k;
            }
        }
        throw new IllegalStateException("unbalanced tokens");
    }

    /**
     * The word at {@code k} can be a keyword: PostgreSQL reads even a reserved word as a column label after
     * {@code AS} or a field name after {@code .} ({@code SELECT 1 AS returning}, {@code s.from}).
     */
    static boolean isKeyword(List<Token> tokens, int k) {
        return k == 0 || !(tokens.get(k - 1).isSymbol(".") || tokens.get(k - 1).isWord("AS"));
    }

    /** Which token ends a clause: {@link #firstTopLevel} stops at the first keyword it accepts. */
    interface ClauseEnd {
        boolean at(List<Token> tokens, int k);
    }

    /**
     * The index of the first token from {@code from}, outside every parenthesis and bracket, that can be a keyword
     * ({@link #isKeyword}) and that {@code end} accepts; the statement's size when there is none.
     */
    static int firstTopLevel(List<Token> tokens, int from, ClauseEnd end) {
        int depth = 0;
        for (int k = from; k < tokens.size(); k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && isKeyword(tokens, k) && end.at(tokens, k)) {
                return k;
            }
        }
        return tokens.size();
    }

    /**
     * Reads a write's target, {@code name} or {@code schema.name} (not ONLY, not three parts), at {@code from} into
     * {@code parts} as written; the index after it, or -1 when there is no such name.
     */
    static int target(List<Token> tokens, int from, List<String> parts) {
        int i = from;
        while (true) {
            if (i >= tokens.size() || !isName(tokens.get(i)) || tokens.get(i).isWord("ONLY")) {
                return -1;
            }
            parts.add(tokens.get(i).text());
            i++;
            if (i < tokens.size() && tokens.get(i).isSymbol(".")) {
                i++;
            } else {
                return parts.size() > 2 ? -1 : i;
            }
        }
    }
}
