package dev.fenced.internal.sql;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Transaction control in a multi-statement text ({@code BEGIN; UPDATE ...; COMMIT}): such a statement writes
 * nothing, and JSqlParser does not read all of them (a {@code BEGIN} starts a block for it). The parser is given a
 * {@link #PLACEHOLDER} in its place and the statement is sent exactly as written.
 */
final class TransactionControl {

    static final String PLACEHOLDER = "SELECT 1";

    private static final Set<String> FIRST_WORDS =
            Set.of("BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE");

    private TransactionControl() {}

    /**
     * When the statement starting at {@code start} is transaction control with no parameter, the index of its
     * last token; else -1.
     */
    static int endOfPiece(List<Token> tokens, int start) {
        Token first = tokens.get(start);
        if (first.kind() != Token.Kind.WORD
                || !FIRST_WORDS.contains(first.text().toUpperCase(Locale.ROOT))) {
            return -1;
        }
        int i = start;
        while (i + 1 < tokens.size() && !tokens.get(i + 1).isSymbol(";")) {
            i++;
            Token t = tokens.get(i);
            if (t.kind() != Token.Kind.WORD && t.kind() != Token.Kind.QUOTED_IDENTIFIER && !t.isSymbol(",")) {
                return -1; // transaction control is words: anything else is left to the parser
            }
        }
        return i;
    }
}
