package dev.fenced.internal.sql;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a statement in a SQL text that ends the session's transaction ({@code COMMIT}, {@code END},
 * {@code ROLLBACK} without {@code TO}, {@code ABORT}, {@code PREPARE TRANSACTION}; {@code AND CHAIN} forms too,
 * since the new transaction holds none of the old one's locks). Used where a transaction must not end before
 * its owner ends it: {@link dev.fenced.PlainLock}'s lock is transaction-scoped. The text is lexed as
 * PostgreSQL lexes it, so a {@code COMMIT} inside a string, a comment or a dollar-quoted body is not one.
 */
public final class TransactionEnds {

    private TransactionEnds() {}

    /** The first word of the first statement in {@code sql} that ends the transaction, if any. */
    public static Optional<String> find(String sql) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        int atomicBodies = 0; // BEGIN ATOMIC ... END (a SQL-standard function body) holds statements and an END
        boolean statementStart = true;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.isSymbol(";")) {
                statementStart = true;
                continue;
            }
            if (t.isWord("BEGIN") && i + 1 < tokens.size() && tokens.get(i + 1).isWord("ATOMIC")) {
                atomicBodies++;
            }
            if (statementStart) {
                statementStart = false;
                if (t.isWord("END") && atomicBodies > 0) {
                    atomicBodies--;
                } else if (ends(tokens, i)) {
                    return Optional.of(t.text().toUpperCase(Locale.ROOT));
                }
            }
        }
        return Optional.empty();
    }

    private static boolean ends(List<Token> tokens, int i) {
        Token t = tokens.get(i);
        Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
        if (t.isWord("COMMIT") || t.isWord("END") || t.isWord("ABORT")) {
            return true;
        }
        if (t.isWord("ROLLBACK")) {
            // ROLLBACK TO [SAVEPOINT] x keeps the transaction (and the locks taken before the savepoint)
            return next == null || !next.isWord("TO");
        }
        return t.isWord("PREPARE") && next != null && next.isWord("TRANSACTION");
    }
}
