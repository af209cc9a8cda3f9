package dev.fenced.internal.sql;

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
}
