package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The places fenced needs in an {@code UPDATE target [[AS] alias] SET ... [FROM ...] [WHERE ...] [RETURNING ...]},
 * read from PostgreSQL's tokens with every expression a balanced run of tokens: used where JSqlParser cannot read
 * (or would change) the statement's expressions. Reads only a statement that starts with UPDATE; anything else
 * (ONLY, {@code t *}, three-part names, WHERE CURRENT OF, unbalanced brackets) is not read (null).
 *
 * @param target   the target as written, folded
 * @param qualifier how the statement names the target's row: its alias, else its bare name (as written)
 * @param setEnd   the index of the first token after the SET list: where fenced's SET item goes
 * @param hasFrom  a FROM list is in scope, so the guard must qualify the fence column
 * @param columns  the folded columns the SET list assigns
 * @param values   each SET item's value tokens
 */
record UpdateSkeleton(
        TableName target,
        String qualifier,
        int setEnd,
        boolean hasFrom,
        List<String> columns,
        List<List<Token>> values) {

    /** Top-level words that end the SET list. */
    private static final Set<String> AFTER_SET = Set.of("FROM", "WHERE", "RETURNING");

    static @Nullable UpdateSkeleton read(List<Token> tokens) {
        if (tokens.isEmpty() || !tokens.get(0).isWord("UPDATE") || !TokenRuns.balanced(tokens)) {
            return null;
        }
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).isWord("CURRENT") && tokens.get(i + 1).isWord("OF")) {
                return null;
            }
        }
        List<String> parts = new ArrayList<>();
        int i = TokenRuns.target(tokens, 1, parts);
        if (i < 0) {
            return null;
        }
        String qualifier = parts.get(parts.size() - 1);
        if (i < tokens.size() && tokens.get(i).isWord("AS")) {
            i++;
        }
        if (i < tokens.size()
                && TokenRuns.isName(tokens.get(i))
                && !tokens.get(i).isWord("SET")) {
            qualifier = tokens.get(i).text();
            i++;
        }
        if (i >= tokens.size() || !tokens.get(i).isWord("SET")) {
            return null;
        }
        List<String> columns = new ArrayList<>();
        List<List<Token>> values = new ArrayList<>();
        int end = readSetList(tokens, i + 1, columns, values);
        if (end < 0) {
            return null;
        }
        boolean hasFrom = end < tokens.size() && tokens.get(end).isWord("FROM");
        String folded = parts.get(parts.size() - 1);
        TableName target =
                new TableName(parts.size() == 2 ? TableName.fold(parts.get(0)) : null, TableName.fold(folded));
        return new UpdateSkeleton(target, qualifier, end, hasFrom, columns, values);
    }

    /**
     * Reads the SET list that starts at {@code from} (after SET), up to a top-level FROM, WHERE, RETURNING or the
     * end, into {@code columns} and {@code values}: the index of the token after it, or -1 when an item is not read.
     * Shared with ON CONFLICT DO UPDATE ({@link ConflictClause}).
     */
    static int readSetList(List<Token> tokens, int from, List<String> columns, List<List<Token>> values) {
        int depth = 0;
        int itemStart = from;
        for (int k = from; k <= tokens.size(); k++) {
            Token t = k < tokens.size() ? tokens.get(k) : null;
            boolean itemEnds = t == null || depth == 0 && t.isSymbol(",") || depth == 0 && endsSet(tokens, k);
            if (itemEnds) {
                if (!readItem(tokens, itemStart, k, columns, values)) {
                    return -1;
                }
                itemStart = k + 1;
                if (t == null || !t.isSymbol(",")) {
                    return k;
                }
                continue;
            }
            // t is not null here: a missing token ends the item above
            if (t != null && (t.isSymbol("(") || t.isSymbol("["))) {
                depth++;
            } else if (t != null && (t.isSymbol(")") || t.isSymbol("]"))) {
                depth--;
            }
        }
        return -1; // not reached: the loop ends at the end of the tokens
    }

    /** A FROM, WHERE or RETURNING at the top level; FROM in {@code IS [NOT] DISTINCT FROM} is an operator. */
    private static boolean endsSet(List<Token> tokens, int k) {
        Token t = tokens.get(k);
        if (t.kind() != Token.Kind.WORD
                || !AFTER_SET.contains(t.text().toUpperCase(java.util.Locale.ROOT))
                || !TokenRuns.isKeyword(tokens, k)) {
            return false;
        }
        return !(t.isWord("FROM") && k > 0 && tokens.get(k - 1).isWord("DISTINCT"));
    }

    /**
     * {@code col[...] = value}, {@code col.field = value} or {@code (a, b) = value}: the columns and the value. Also
     * {@link MergeSkeleton}'s, for a MERGE's {@code THEN UPDATE SET}.
     */
    static boolean readItem(List<Token> tokens, int from, int to, List<String> columns, List<List<Token>> values) {
        int eq = -1;
        int depth = 0;
        for (int k = from; k < to; k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isSymbol("=")) {
                eq = k;
                break;
            }
        }
        if (eq <= from || eq + 1 >= to) {
            return false;
        }
        if (tokens.get(from).isSymbol("(")) {
            boolean expectName = true;
            for (int k = from + 1; k < eq - 1; k++) {
                Token t = tokens.get(k);
                if (expectName) {
                    if (!TokenRuns.isName(t)) {
                        return false;
                    }
                    columns.add(TableName.fold(t.text()));
                    expectName = false;
                } else if (t.isSymbol(",")) {
                    expectName = true;
                } else if (!t.isSymbol(".") && !t.isSymbol("[") && !t.isSymbol("]") && t.kind() == Token.Kind.SYMBOL) {
                    return false;
                }
            }
            if (!tokens.get(eq - 1).isSymbol(")")) {
                return false;
            }
        } else if (TokenRuns.isName(tokens.get(from))) {
            columns.add(TableName.fold(tokens.get(from).text()));
        } else {
            return false;
        }
        values.add(tokens.subList(eq + 1, to));
        return true;
    }
}
