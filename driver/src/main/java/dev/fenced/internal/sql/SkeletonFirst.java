package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which statements a never-seen text may be fenced by position ({@link SkeletonFencer}) before JSqlParser is asked:
 * parsing the statement and re-parsing the fenced text for the check was nearly all of a new text's cost. Only forms
 * whose every place the skeleton reads fully, with nothing the parser's path would judge that the skeleton cannot:
 *
 * <ul>
 *   <li>{@code UPDATE target [[AS] alias] SET item, ... [FROM plain tables] [WHERE ...] [RETURNING ...]} where each
 *       item assigns plain columns ({@code c = v} or {@code (a, b) = v}, no fields or subscripts); a FROM list only
 *       of tables ({@link PlainFromList}) none of which is protected (nor the target again), with no query in the SET
 *       values, where a name qualified by a FROM item is that item's column ({@link SkeletonFencer#fence} judges a
 *       FROM list so too, for what JSqlParser cannot read);
 *   <li>{@code INSERT INTO target [AS alias] (plain columns) [OVERRIDING ... VALUE] VALUES (...), ...
 *       [ON CONFLICT ...] [RETURNING ...]}, every row as wide as the column list; an ON CONFLICT as
 *       {@link ConflictClause} reads it, whose DO UPDATE SET list is judged and guarded as an UPDATE's without FROM
 *       (a value's {@code excluded.c} reads the proposed row, not the existing one);
 *   <li>{@code DELETE FROM target [[AS] alias] [USING plain tables] [WHERE ...] [RETURNING ...]}
 *       ({@link DeleteSkeleton}; USING as an UPDATE's FROM above), fenced with the
 *       parser's path's own condition and refusals ({@link DeleteFencer#guardedWhere},
 *       {@link DeleteFencer#refuseUnrepeatable}).
 *   <li>{@code MERGE INTO target [[AS] alias] USING source ON condition WHEN ... [RETURNING ...]} as
 *       {@link MergeSkeleton} reads it, fenced by {@link MergeByPosition} (MergeFencer's builders and refusals), where
 *       each UPDATE action's SET targets are plain columns and its values' relative update is decidable as above,
 *       a name qualified by any one-part name but the target's read as the source's
 *       ({@link SkeletonFencer#fenceFirst}). What MergeSkeleton does not read (INSERT DEFAULT VALUES, {@code t *},
 *       a WITH before it) is left to the parser's path.
 * </ul>
 *
 * Anything else is declined (null) and planned by the parser's path as before, never refused here: no query inside
 * (SELECT, VALUES, TABLE, WITH) but the parenthesised read-only subqueries {@link ReadOnlySubqueries} admits (whose
 * words are not judged here), no ON CONFLICT the lane does not read ({@link ConflictClause}), USING but a DELETE's
 * plain list, JOIN, ONLY, {@code t *}, LATERAL, CURRENT OF, ORDER BY, LIMIT,
 * OFFSET, FETCH. An UPDATE value that may read a column it assigns is a relative update, judged as the parser's
 * path judges column references: a bare name, or one qualified by the target's own name or alias; a name that
 * could be anything else there (a function, a type, a field, a keyword, a typed literal's type) declines.
 */
final class SkeletonFirst {

    /** Words that send a statement to the parser's path wherever they stand (the few allowed places aside). */
    private static final Set<String> DECLINED = Set.of(
            "SELECT",
            "VALUES",
            "TABLE",
            "WITH",
            "ON",
            "CONFLICT",
            "USING",
            "ONLY",
            "LATERAL",
            "CURRENT",
            "ORDER",
            "LIMIT",
            "OFFSET",
            "FETCH",
            "INTO");

    /** Words before a column reference that cannot make it anything else (an operand follows them). */
    private static final Set<String> OPERAND_BEFORE =
            Set.of("AND", "OR", "NOT", "CASE", "WHEN", "THEN", "ELSE", "BETWEEN", "LIKE", "ILIKE");

    private SkeletonFirst() {}

    /**
     * True when {@code statement} holds none of the {@link #DECLINED} words but INSERT's own INTO and VALUES
     * ({@code sourceAt}: the index of the VALUES keyword, -1 for an UPDATE). Quoted names are names, not words.
     */
    static boolean plainWords(List<Token> statement, int sourceAt) {
        return plainWords(statement, sourceAt, List.of());
    }

    /**
     * {@link #plainWords(List, int)}, the words at {@code clauseWords} allowed: an ON CONFLICT's own
     * ({@link ConflictClause}), a DELETE's USING keyword before a {@link PlainFromList plain list}.
     */
    static boolean plainWords(List<Token> statement, int sourceAt, List<Integer> clauseWords) {
        return plainWordsAround(statement, sourceAt, sourceAt + 1, clauseWords);
    }

    /**
     * {@link #plainWords(List, int, List)} of an INSERT's words but its source's, {@code sourceStart} to
     * {@code sourceEnd}, which {@link #plainSource} judges.
     */
    static boolean plainWordsAround(List<Token> statement, int sourceStart, int sourceEnd, List<Integer> clauseWords) {
        boolean insert = statement.get(0).isWord("INSERT");
        for (int k = 1; k < statement.size(); k++) {
            Token t = statement.get(k);
            if (t.kind() != Token.Kind.WORD || !DECLINED.contains(t.text().toUpperCase(Locale.ROOT))) {
                continue;
            }
            if (insert && (k == 1 && t.isWord("INTO") || k >= sourceStart && k < sourceEnd)
                    || clauseWords.contains(k)) {
                continue;
            }
            return false;
        }
        return true;
    }

    /**
     * An INSERT's source the lane reads as the parser's path does, which fences it by its shape alone
     * ({@link InsertFencer}: the token joins each VALUES row, a plain SELECT's output list, also inside parentheses
     * around the whole source ({@link InsertSkeleton}), or a wrapper around any other query) and judges nothing inside
     * it: VALUES rows whose words outside their read-only subqueries
     * ({@link ReadOnlySubqueries}) are plain, or a query holding nothing a read-only subquery may not (VALUES
     * lists aside, {@link ReadOnlySubqueries#readOnlyQuery}).
     */
    static boolean plainSource(List<Token> statement, InsertSkeleton insert) {
        int from = insert.sourceStart();
        int to = insert.sourceEnd();
        if (insert.queryStart() >= 0 || !statement.get(from).isWord("VALUES")) {
            return ReadOnlySubqueries.readOnlyQuery(statement, from, to);
        }
        List<Token> outside = ReadOnlySubqueries.outside(statement.subList(from, to));
        if (outside == null) {
            return false;
        }
        for (int k = 1; k < outside.size(); k++) {
            Token t = outside.get(k);
            if (t.kind() == Token.Kind.WORD && DECLINED.contains(t.text().toUpperCase(Locale.ROOT))) {
                return false;
            }
        }
        return true;
    }

    /** Each SET item's target is {@code name} or {@code (name, ...)}: no fields, subscripts or qualified names. */
    static boolean plainSetTargets(List<Token> statement, int setEnd) {
        int set = 1;
        while (set < setEnd && !statement.get(set).isWord("SET")) {
            set++;
        }
        return plainSetTargets(statement, set, setEnd);
    }

    /** {@link #plainSetTargets(List, int)} of the SET list whose SET is at {@code set} (ON CONFLICT DO UPDATE's). */
    static boolean plainSetTargets(List<Token> statement, int set, int setEnd) {
        int depth = 0;
        boolean inTarget = true;
        int itemStart = set + 1;
        for (int k = set + 1; k < setEnd; k++) {
            Token t = statement.get(k);
            if (inTarget) {
                if (t.isSymbol("=") && depth == 0) {
                    if (!plainTarget(statement, itemStart, k)) {
                        return false;
                    }
                    inTarget = false;
                } else if (t.isSymbol("(")) {
                    depth++;
                } else if (t.isSymbol(")")) {
                    depth--;
                }
                continue;
            }
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isSymbol(",")) {
                inTarget = true;
                itemStart = k + 1;
            }
        }
        return !inTarget;
    }

    private static boolean plainTarget(List<Token> tokens, int from, int to) {
        if (to - from == 1) {
            return TokenRuns.isName(tokens.get(from));
        }
        if (to - from < 3
                || !tokens.get(from).isSymbol("(")
                || !tokens.get(to - 1).isSymbol(")")) {
            return false;
        }
        for (int k = from + 1; k < to - 1; k++) {
            boolean name = (k - from) % 2 == 1;
            if (name ? !TokenRuns.isName(tokens.get(k)) : !tokens.get(k).isSymbol(",")) {
                return false;
            }
        }
        return (to - from) % 2 == 1;
    }

    /** The column list of an INSERT is plain names: the tokens from its {@code (} to {@code listEnd}. */
    static boolean plainColumnList(List<Token> statement, int listEnd) {
        int k = listEnd - 1;
        boolean name = true;
        while (k > 0 && !statement.get(k).isSymbol("(")) {
            if (name ? !TokenRuns.isName(statement.get(k)) : !statement.get(k).isSymbol(",")) {
                return false;
            }
            name = !name;
            k--;
        }
        return !name && k > 0;
    }

    /**
     * Whether every name in the SET values that spells an assigned column is one the parser's path reads as a
     * column reference or certainly does not: false when one is in a place it could be read either way.
     */
    static boolean ownColumnsDecidable(UpdateSkeleton update, @Nullable List<String> tableColumns) {
        return ownColumnsDecidable(update, OtherRows.NONE, tableColumns);
    }

    /**
     * Which rows besides the target's a SET value may name by a one-part qualifier, and so which qualified names the
     * parser's path certainly reads as another row's column ({@link ColumnReferences#readsOwnColumn} skips any
     * column whose qualifier is not the target's own): none ({@link #NONE}, an UPDATE without FROM: a qualified name
     * not the target's is a field, a schema ... undecided), those {@link #named} (ON CONFLICT DO UPDATE's
     * {@code excluded}, the proposed row; an UPDATE's plain FROM items, {@link PlainFromList}), or any name (a
     * MERGE's source, {@link #ANY_NAMED}: {@code s.c}, a join's {@code s2.c}). No other row is ever named as the
     * target's own qualifier.
     */
    record OtherRows(boolean anyNamed, Collection<String> names) {
        static final OtherRows NONE = new OtherRows(false, List.of());
        static final OtherRows EXCLUDED = named(List.of(ConflictClause.EXCLUDED));
        static final OtherRows ANY_NAMED = new OtherRows(true, List.of());

        /** The rows named by {@code names} (folded). */
        static OtherRows named(Collection<String> names) {
            return new OtherRows(false, names);
        }

        boolean named(String qualifier) {
            return anyNamed || names.contains(qualifier);
        }
    }

    /**
     * {@link #ownColumnsDecidable(UpdateSkeleton, List)} of a SET list with other rows in scope ({@code others}): a
     * name qualified by one of them is another row's column, which the parser's path reads as another table's
     * column, never the target's.
     */
    static boolean ownColumnsDecidable(UpdateSkeleton update, OtherRows others, @Nullable List<String> tableColumns) {
        String own = TableName.fold(update.qualifier());
        for (List<Token> value : update.values()) {
            for (int j = 0; j < value.size(); j++) {
                Token t = value.get(j);
                boolean qualified = j > 0 && value.get(j - 1).isSymbol(".");
                if (TokenRuns.isName(t)
                        && !qualified
                        && TableName.fold(t.text()).equals(own)
                        && ColumnReferences.wholeRow(value, j)) {
                    return false; // the row as a whole (f(t), (t).n, t.*): the parser's path judges it
                }
                if (ColumnReferences.callsOnRow(value, j, own, tableColumns)) {
                    return false; // t.f, f(t) in attribute notation: the row as a whole, as above
                }
                if (readsAssigned(update, value, j, others) == Read.UNDECIDED) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The first assigned column the SET values read (a relative update), or null; after {@link #ownColumnsDecidable}. */
    static @Nullable String ownColumnRead(UpdateSkeleton update) {
        for (List<Token> value : update.values()) {
            for (int j = 0; j < value.size(); j++) {
                if (readsAssigned(update, value, j, OtherRows.NONE) == Read.OWN_COLUMN) {
                    return TableName.fold(value.get(j).text());
                }
            }
        }
        return null;
    }

    private enum Read {
        NOT_ASSIGNED,
        OWN_COLUMN,
        UNDECIDED
    }

    private static Read readsAssigned(UpdateSkeleton update, List<Token> value, int j, OtherRows others) {
        Token t = value.get(j);
        if (!TokenRuns.isName(t) || !update.columns().contains(TableName.fold(t.text()))) {
            return Read.NOT_ASSIGNED;
        }
        if (t.kind() == Token.Kind.WORD && TableName.isKeyword(TableName.fold(t.text()))) {
            return Read.UNDECIDED; // true, current_date, a type name ...: what it is depends on the grammar
        }
        Token next = j + 1 < value.size() ? value.get(j + 1) : null;
        if (next != null
                && (next.isSymbol("(")
                        || next.isSymbol(".")
                        || next.kind() == Token.Kind.STRING
                        || TokenRuns.isName(next)
                        || next.isSymbol("=>")
                        || next.isSymbol(":="))) {
            // a function, a qualifier, a typed literal's type, a type of several words, a named argument's name
            // (f(c => 1): the parser's path reads no column there)
            return Read.UNDECIDED;
        }
        Token before = j > 0 ? value.get(j - 1) : null;
        if (before == null) {
            return Read.OWN_COLUMN;
        }
        if (before.isSymbol(".")) {
            // qualified: the row's own qualifier (one part) makes it a reference to the row's column
            boolean onePart = j >= 2
                    && TokenRuns.isName(value.get(j - 2))
                    && (j < 3 || !value.get(j - 3).isSymbol("."));
            String by = onePart ? TableName.fold(value.get(j - 2).text()) : null;
            if (by != null && by.equals(TableName.fold(update.qualifier()))) {
                return Read.OWN_COLUMN;
            }
            // excluded.c, o.c, a MERGE's s.c: another row's column, never the target's
            return by != null && others.named(by) ? Read.NOT_ASSIGNED : Read.UNDECIDED;
        }
        if (before.isSymbol("::")
                || TokenRuns.isName(before)
                        && !(before.kind() == Token.Kind.WORD
                                && OPERAND_BEFORE.contains(before.text().toUpperCase(Locale.ROOT)))) {
            return Read.UNDECIDED; // a type (x::c, CAST(x AS c)) or a word that makes it something else
        }
        return Read.OWN_COLUMN;
    }
}
