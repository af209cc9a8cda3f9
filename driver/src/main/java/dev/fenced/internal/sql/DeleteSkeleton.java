package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The places fenced needs in a {@code DELETE FROM target [[AS] alias] [USING plain tables] [WHERE ...]
 * [RETURNING ...]}, read from PostgreSQL's tokens with the WHERE a balanced run of tokens: where the guard goes and
 * what it repeats. Reads only that form; anything else (a USING list that is not {@link PlainFromList plain}, ONLY,
 * {@code t *}, three-part names, WHERE CURRENT OF, unbalanced brackets, a statement that does not start with DELETE
 * FROM) is not read (null). In PostgreSQL's grammar
 * ({@code DeleteStmt}) nothing but RETURNING can follow the WHERE's expression, so the first RETURNING at the top
 * level (not a field name after {@code .} or a label after {@code AS}) ends it.
 *
 * @param target       the target as written, folded
 * @param writtenTable the target's name as written ({@code schema.name}, quotes kept): what the tombstone hand-over
 *                     names, as the parser's path names it
 * @param qualifier    how the statement names the target's row: its alias, else its bare name (as written)
 * @param whereStart   the index of the WHERE's first token, or -1 when there is no WHERE
 * @param whereEnd     the index after the WHERE (of RETURNING, or the statement's size); without a WHERE, where
 *                     one goes
 * @param usingAt      the index of the USING keyword, or -1 when there is none
 * @param using        the USING list, or null when there is none
 */
record DeleteSkeleton(
        TableName target,
        String writtenTable,
        String qualifier,
        int whereStart,
        int whereEnd,
        int usingAt,
        @Nullable PlainFromList using) {

    static @Nullable DeleteSkeleton read(List<Token> tokens) {
        if (tokens.size() < 3
                || !tokens.get(0).isWord("DELETE")
                || !tokens.get(1).isWord("FROM")
                || !TokenRuns.balanced(tokens)) {
            return null;
        }
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).isWord("CURRENT") && tokens.get(i + 1).isWord("OF")) {
                return null;
            }
        }
        List<String> parts = new ArrayList<>();
        int i = TokenRuns.target(tokens, 2, parts);
        if (i < 0) {
            return null;
        }
        String qualifier = parts.get(parts.size() - 1);
        if (i < tokens.size() && tokens.get(i).isWord("AS")) {
            i++;
            if (i >= tokens.size() || !TokenRuns.isPlainName(tokens.get(i))) {
                return null;
            }
        }
        if (i < tokens.size() && TokenRuns.isPlainName(tokens.get(i))) {
            qualifier = tokens.get(i).text();
            i++;
        }
        PlainFromList using = null;
        int usingAt = -1;
        if (i < tokens.size() && tokens.get(i).isWord("USING")) {
            usingAt = i;
            using = PlainFromList.read(tokens, i + 1);
            if (using == null) {
                return null;
            }
            i = using.end();
        }
        int whereStart = -1;
        if (i < tokens.size() && tokens.get(i).isWord("WHERE")) {
            whereStart = i + 1;
            i = returningAt(tokens, whereStart);
            if (i == whereStart) {
                return null; // WHERE with nothing to read
            }
        }
        if (i < tokens.size() && !(tokens.get(i).isWord("RETURNING") && i + 1 < tokens.size())) {
            return null; // `t *`, anything else after the target
        }
        String folded = parts.get(parts.size() - 1);
        TableName target =
                new TableName(parts.size() == 2 ? TableName.fold(parts.get(0)) : null, TableName.fold(folded));
        return new DeleteSkeleton(target, String.join(".", parts), qualifier, whereStart, i, usingAt, using);
    }

    /** The index of the first top-level RETURNING keyword from {@code from}, or the statement's size. */
    private static int returningAt(List<Token> tokens, int from) {
        return TokenRuns.firstTopLevel(tokens, from, (ts, k) -> ts.get(k).isWord("RETURNING"));
    }

    boolean hasWhere() {
        return whereStart >= 0;
    }
}
