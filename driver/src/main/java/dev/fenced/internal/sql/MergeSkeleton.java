package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The places fenced needs in a {@code MERGE INTO target [[AS] alias] USING source ON condition WHEN ... [RETURNING
 * ...]}, read from PostgreSQL's tokens with every expression a balanced run of tokens: used where JSqlParser cannot
 * read (or would change) the statement ({@link MergeFencer} fences what it reads). A WHEN clause starts at a
 * top-level WHEN, outside every bracket and every {@code CASE ... END}, so a CASE's WHEN and THEN in a condition or a
 * SET value are the expression's; the first top-level RETURNING ends the last clause (in PostgreSQL's
 * {@code MergeStmt} nothing else follows the WHEN clauses).
 *
 * <p>Not read (null), so the statement stays refused: {@code t *}, three-part names, unbalanced brackets, an
 * action other than {@code UPDATE SET ...}, {@code DELETE}, {@code DO NOTHING} or {@code INSERT [(columns)]
 * [OVERRIDING ... VALUE] VALUES (...)} ({@code INSERT DEFAULT VALUES} needs its words replaced, which a fence by
 * position cannot do), an action of the wrong kind for its clause (PostgreSQL rejects it), an INSERT column with a
 * field or subscript.
 *
 * @param target       the target as written, folded
 * @param writtenTable the target's name as written ({@code schema.name}, quotes kept), as the parser's path names it
 * @param qualifier    how the statement names the target's row: its alias, else its bare name (as written)
 * @param clauses      the WHEN clauses in order
 */
record MergeSkeleton(TableName target, String writtenTable, String qualifier, List<Clause> clauses) {

    /** Which rows a WHEN clause is for. */
    enum Side {
        MATCHED,
        NOT_MATCHED_BY_TARGET,
        NOT_MATCHED_BY_SOURCE
    }

    enum Action {
        UPDATE,
        DELETE,
        INSERT,
        DO_NOTHING
    }

    /**
     * One {@code WHEN ... THEN action}.
     *
     * @param condStart   the index of the AND condition's first token, or -1 without one
     * @param then        the index of the clause's THEN (the condition ends there)
     * @param end         the index after the clause's last token: where an UPDATE's SET item goes
     * @param setColumns  UPDATE: the folded columns its SET list assigns
     * @param setValues   UPDATE: each SET item's value tokens
     * @param insertColumns INSERT: its folded column names (empty without a list)
     * @param columnListEnd INSERT: the index of its column list's {@code )}, or -1 without a list
     * @param valuesEnd   INSERT: the index of its VALUES row's {@code )}
     * @param values      INSERT: how many values the row has
     */
    record Clause(
            Side side,
            Action action,
            int condStart,
            int then,
            int end,
            List<String> setColumns,
            List<List<Token>> setValues,
            List<String> insertColumns,
            int columnListEnd,
            int valuesEnd,
            int values) {

        boolean conditional() {
            return condStart >= 0;
        }
    }

    static @Nullable MergeSkeleton read(List<Token> tokens) {
        if (tokens.size() < 3
                || !tokens.get(0).isWord("MERGE")
                || !tokens.get(1).isWord("INTO")
                || !TokenRuns.balanced(tokens)) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        // MERGE INTO ONLY t: the rows written are t's alone, fenced as t's are (the parser's path lifts ONLY off too)
        int i = TokenRuns.target(tokens, tokens.get(2).isWord("ONLY") ? 3 : 2, parts);
        if (i < 0) {
            return null;
        }
        String qualifier = parts.get(parts.size() - 1);
        if (i < tokens.size() && tokens.get(i).isWord("AS")) {
            i++;
            if (i >= tokens.size() || !alias(tokens.get(i))) {
                return null;
            }
        }
        if (i < tokens.size() && alias(tokens.get(i))) {
            qualifier = tokens.get(i).text();
            i++;
        }
        if (i >= tokens.size() || !tokens.get(i).isWord("USING")) {
            return null;
        }
        List<Integer> whens = new ArrayList<>();
        int end = clauseKeywords(tokens, i + 1, whens);
        if (end < 0 || whens.isEmpty() || !mergeCondition(tokens, i + 1, whens.get(0))) {
            return null;
        }
        if (end < tokens.size() && end + 1 >= tokens.size()) {
            return null; // RETURNING with nothing after it
        }
        List<Clause> clauses = new ArrayList<>();
        for (int w = 0; w < whens.size(); w++) {
            Clause clause = clause(tokens, whens.get(w), w + 1 < whens.size() ? whens.get(w + 1) : end);
            if (clause == null) {
                return null;
            }
            clauses.add(clause);
        }
        String folded = parts.get(parts.size() - 1);
        TableName target =
                new TableName(parts.size() == 2 ? TableName.fold(parts.get(0)) : null, TableName.fold(folded));
        return new MergeSkeleton(target, String.join(".", parts), qualifier, List.copyOf(clauses));
    }

    /**
     * The top-level WHENs from {@code from} into {@code whens}, outside brackets and CASE ... END; the index of the
     * first top-level RETURNING after the first WHEN, or the statement's size; -1 when a top-level CASE ... END does
     * not pair up (not read).
     *
     * <p>CASE and END are counted at the top level only: a CASE expression is balanced, so its END is at its CASE's
     * depth, while inside brackets {@code case} and {@code end} can be bare column labels ({@code (SELECT n case
     * FROM s)}, {@code (SELECT 'x' end)}), which, counted as a CASE opened and closed, hid the WHEN clauses between
     * them: those ran unfenced.
     */
    private static int clauseKeywords(List<Token> tokens, int from, List<Integer> whens) {
        int depth = 0;
        int cases = 0;
        for (int k = from; k < tokens.size(); k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.kind() == Token.Kind.WORD && TokenRuns.isKeyword(tokens, k)) {
                if (t.isWord("CASE")) {
                    cases++;
                } else if (t.isWord("END") && --cases < 0) {
                    return -1;
                } else if (cases == 0 && t.isWord("WHEN")) {
                    whens.add(k);
                } else if (cases == 0 && t.isWord("RETURNING") && !whens.isEmpty()) {
                    return k;
                }
            }
        }
        return cases == 0 ? tokens.size() : -1;
    }

    /**
     * {@code source ON condition} from {@code from} to the first WHEN: the last top-level ON is the MERGE's (a join
     * in the source has its own before it; ON is reserved, so no expression has one at the top level), with a source
     * and a condition around it.
     */
    private static boolean mergeCondition(List<Token> tokens, int from, int firstWhen) {
        int on = -1;
        int depth = 0;
        for (int k = from; k < firstWhen; k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isWord("ON") && TokenRuns.isKeyword(tokens, k)) {
                on = k;
            }
        }
        return on > from && on + 1 < firstWhen;
    }

    /** The WHEN clause from {@code when} to {@code end}, or null when it is not one fenced reads. */
    private static @Nullable Clause clause(List<Token> tokens, int when, int end) {
        int i = when + 1;
        Side side;
        if (at(tokens, i, end, "MATCHED")) {
            side = Side.MATCHED;
            i++;
        } else if (at(tokens, i, end, "NOT") && at(tokens, i + 1, end, "MATCHED")) {
            i += 2;
            side = Side.NOT_MATCHED_BY_TARGET;
            if (at(tokens, i, end, "BY") && at(tokens, i + 1, end, "SOURCE")) {
                side = Side.NOT_MATCHED_BY_SOURCE;
                i += 2;
            } else if (at(tokens, i, end, "BY") && at(tokens, i + 1, end, "TARGET")) {
                i += 2;
            }
        } else {
            return null;
        }
        int condStart = -1;
        if (at(tokens, i, end, "AND")) {
            condStart = i + 1;
        }
        int then = thenAt(tokens, condStart >= 0 ? condStart : i, end);
        if (then < 0 || (condStart < 0 && then != i) || then == condStart) {
            return null;
        }
        int a = then + 1;
        if (at(tokens, a, end, "DO") && at(tokens, a + 1, end, "NOTHING") && a + 2 == end) {
            return simple(side, Action.DO_NOTHING, condStart, then, end);
        }
        if (side == Side.NOT_MATCHED_BY_TARGET) {
            return at(tokens, a, end, "INSERT") ? insert(tokens, side, condStart, then, end) : null;
        }
        if (at(tokens, a, end, "DELETE") && a + 1 == end) {
            return simple(side, Action.DELETE, condStart, then, end);
        }
        if (at(tokens, a, end, "UPDATE") && at(tokens, a + 1, end, "SET")) {
            return update(tokens, side, condStart, then, end);
        }
        return null;
    }

    private static Clause simple(Side side, Action action, int condStart, int then, int end) {
        return new Clause(side, action, condStart, then, end, List.of(), List.of(), List.of(), -1, -1, 0);
    }

    /**
     * The first THEN from {@code from} outside brackets and CASE ... END, before {@code end}; -1 when none. CASE and
     * END at the top level only, as {@link #clauseKeywords} counts them (inside brackets they can be column labels).
     */
    private static int thenAt(List<Token> tokens, int from, int end) {
        int depth = 0;
        int cases = 0;
        for (int k = from; k < end; k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.kind() == Token.Kind.WORD && TokenRuns.isKeyword(tokens, k)) {
                if (t.isWord("CASE")) {
                    cases++;
                } else if (t.isWord("END") && --cases < 0) {
                    return -1;
                } else if (cases == 0 && t.isWord("THEN")) {
                    return k;
                }
            }
        }
        return -1;
    }

    /** {@code UPDATE SET item, ...} up to {@code end}, each item as an UPDATE's ({@link UpdateSkeleton#readItem}). */
    private static @Nullable Clause update(List<Token> tokens, Side side, int condStart, int then, int end) {
        List<String> columns = new ArrayList<>();
        List<List<Token>> values = new ArrayList<>();
        int itemStart = then + 3;
        int depth = 0;
        for (int k = itemStart; k <= end; k++) {
            Token t = k < end ? tokens.get(k) : null;
            if (t == null || depth == 0 && t.isSymbol(",")) {
                if (!UpdateSkeleton.readItem(tokens, itemStart, k, columns, values)) {
                    return null;
                }
                itemStart = k + 1;
            } else if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            }
        }
        return new Clause(
                side,
                Action.UPDATE,
                condStart,
                then,
                end,
                List.copyOf(columns),
                List.copyOf(values),
                List.of(),
                -1,
                -1,
                0);
    }

    /** {@code INSERT [(a, b)] [OVERRIDING {SYSTEM | USER} VALUE] VALUES (v, ...)}, the row ending the clause. */
    private static @Nullable Clause insert(List<Token> tokens, Side side, int condStart, int then, int end) {
        int i = then + 2;
        List<String> columns = new ArrayList<>();
        int columnListEnd = -1;
        if (i < end && tokens.get(i).isSymbol("(")) {
            columnListEnd = TokenRuns.closing(tokens, i);
            for (int k = i + 1; k < columnListEnd; k += 2) {
                if (!TokenRuns.isName(tokens.get(k))
                        || !(tokens.get(k + 1).isSymbol(",") && k + 2 < columnListEnd || k + 1 == columnListEnd)) {
                    return null; // a field or subscript, or an empty name
                }
                columns.add(TableName.fold(tokens.get(k).text()));
            }
            if (columns.isEmpty()) {
                return null;
            }
            i = columnListEnd + 1;
        }
        if (at(tokens, i, end, "OVERRIDING")
                && (at(tokens, i + 1, end, "SYSTEM") || at(tokens, i + 1, end, "USER"))
                && at(tokens, i + 2, end, "VALUE")) {
            i += 3;
        }
        if (!at(tokens, i, end, "VALUES") || i + 1 >= end || !tokens.get(i + 1).isSymbol("(")) {
            return null;
        }
        int valuesEnd = TokenRuns.closing(tokens, i + 1);
        if (valuesEnd != end - 1 || valuesEnd == i + 2) {
            return null; // more than one row, or an empty one
        }
        int values = 1;
        int depth = 0;
        for (int k = i + 2; k < valuesEnd; k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isSymbol(",")) {
                values++;
            }
        }
        return new Clause(
                side,
                Action.INSERT,
                condStart,
                then,
                end,
                List.of(),
                List.of(),
                List.copyOf(columns),
                columnListEnd,
                valuesEnd,
                values);
    }

    private static boolean at(List<Token> tokens, int k, int end, String word) {
        return k < end && tokens.get(k).isWord(word);
    }

    /** A name PostgreSQL reads as the target's alias: quoted, or a word that needs no quotes (so not USING). */
    private static boolean alias(Token t) {
        return t.kind() == Token.Kind.QUOTED_IDENTIFIER
                || t.kind() == Token.Kind.WORD && !TableName.isKeyword(TableName.fold(t.text()));
    }
}
