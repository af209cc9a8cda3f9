package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An INSERT's {@code ON CONFLICT} clause as the skeleton-first lane ({@link SkeletonFirst}) reads it, or nothing:
 *
 * <pre>
 * ON CONFLICT [ (name, ...) [WHERE predicate] | ON CONSTRAINT name ]
 *     DO NOTHING | DO UPDATE SET item, ... [WHERE condition]
 * </pre>
 *
 * An inference list of plain column names only (no expressions, COLLATE or operator classes); DO UPDATE only with a
 * conflict target (PostgreSQL requires one). Its SET list is read as an UPDATE's ({@link UpdateSkeleton#readSetList}),
 * so that fenced's guarded SET item goes after its last item and its values are judged for relative updates as an
 * UPDATE's are. Anything else is not read (null): the statement is declined and the parser's path plans it.
 *
 * @param words  the indexes of the clause's own ON, CONFLICT (and ON CONSTRAINT's ON), which the lane otherwise
 *               declines wherever they stand ({@link SkeletonFirst#plainWords})
 * @param setAt  the index of DO UPDATE's SET, -1 for DO NOTHING
 * @param update DO UPDATE's SET list as an UPDATE of the target without FROM (its {@code setEnd}: where the guarded
 *               item goes), null for DO NOTHING
 */
record ConflictClause(
        List<Integer> words, int setAt, @Nullable UpdateSkeleton update) {

    /**
     * @param tokens the INSERT's tokens
     * @param at     the index of the clause's ON
     * @param end    the index after the clause: its top-level RETURNING, or the end
     * @param target the INSERT's target, folded
     */
    static @Nullable ConflictClause read(List<Token> tokens, int at, int end, TableName target) {
        if (at + 3 >= end || !tokens.get(at).isWord("ON") || !tokens.get(at + 1).isWord("CONFLICT")) {
            return null;
        }
        List<Integer> words = new ArrayList<>(List.of(at, at + 1));
        int k = at + 2;
        boolean inferred = true;
        if (tokens.get(k).isSymbol("(")) {
            int close = TokenRuns.closing(tokens, k);
            if (close >= end || close == k + 1 || !SkeletonFirst.plainColumnList(tokens, close)) {
                return null;
            }
            k = close + 1;
            if (tokens.get(k).isWord("WHERE")) {
                int doAt = TokenRuns.firstTopLevel(
                        tokens, k + 1, (ts, j) -> ts.get(j).isWord("DO"));
                if (doAt >= end || doAt == k + 1) {
                    return null;
                }
                k = doAt;
            }
        } else if (tokens.get(k).isWord("ON")) {
            if (k + 3 >= end || !tokens.get(k + 1).isWord("CONSTRAINT") || !TokenRuns.isName(tokens.get(k + 2))) {
                return null;
            }
            words.add(k);
            k += 3;
        } else {
            inferred = false;
        }
        if (k + 1 >= end || !tokens.get(k).isWord("DO")) {
            return null;
        }
        if (tokens.get(k + 1).isWord("NOTHING")) {
            return k + 2 == end ? new ConflictClause(words, -1, null) : null;
        }
        if (!inferred
                || k + 3 >= end
                || !tokens.get(k + 1).isWord("UPDATE")
                || !tokens.get(k + 2).isWord("SET")) {
            return null;
        }
        int setAt = k + 2;
        List<String> columns = new ArrayList<>();
        List<List<Token>> values = new ArrayList<>();
        int setEnd = UpdateSkeleton.readSetList(tokens, setAt + 1, columns, values);
        // after the SET list: the clause's end, or its WHERE (not FROM: DO UPDATE has none)
        boolean where = setEnd >= 0 && setEnd + 1 < end && tokens.get(setEnd).isWord("WHERE");
        if (setEnd != end && !where) {
            return null;
        }
        String qualifier = qualifier(tokens);
        if (TableName.fold(qualifier).equals(EXCLUDED) || target.name().equals(EXCLUDED)) {
            return null; // refused on the parser's path without an alias; with one, excluded.x names two rows
        }
        return new ConflictClause(words, setAt, new UpdateSkeleton(target, qualifier, setEnd, false, columns, values));
    }

    /** The pseudo-row of the proposed values, which DO UPDATE may read qualified. */
    static final String EXCLUDED = "excluded";

    /** How the INSERT names the target's row: {@code AS alias}, else the target's last name (as written). */
    private static String qualifier(List<Token> tokens) {
        List<String> parts = new ArrayList<>();
        int i = TokenRuns.target(tokens, 2, parts);
        if (i + 1 < tokens.size() && tokens.get(i).isWord("AS") && TokenRuns.isName(tokens.get(i + 1))) {
            return tokens.get(i + 1).text();
        }
        return parts.get(parts.size() - 1);
    }
}
