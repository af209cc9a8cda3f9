package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The parenthesised read-only subqueries ({@code (SELECT ...)}) of an UPDATE's SET values and WHERE or a DELETE's
 * WHERE, for {@link SkeletonFirst}: the lane plans such a statement only when each subquery is one the parser's path
 * judges with no more than what the lane runs too. That path judges nothing inside an UPDATE's subqueries but the
 * relative update ({@link ColumnReferences#readsOwnRow}, token-based, which the lane runs on the same tokens), and
 * a DELETE's subqueries only by {@link DeleteFencer#refuseUnrepeatable} (which the lane runs on the WHERE as
 * written). A subquery reads; it cannot write (PostgreSQL allows a data-modifying WITH only at the top level, and
 * the one-write check before the lane counts every INSERT, UPDATE, DELETE and MERGE keyword).
 *
 * <p>Declined (null) rather than judged: a subquery with WITH, INTO, VALUES, TABLE, ONLY (but FETCH's {@code ROWS
 * ONLY}), LATERAL, CURRENT, a row lock ({@code FOR UPDATE|SHARE|NO KEY|KEY SHARE}), TABLESAMPLE, RETURNING or a
 * data-modifying keyword; a query word outside a {@code (SELECT ...)} group (the lane's
 * {@link SkeletonFirst#plainWords} still judges the rest of the statement).
 */
final class ReadOnlySubqueries {

    /** Words inside a subquery the lane leaves to the parser's path. */
    private static final Set<String> DECLINED_INSIDE = Set.of(
            "WITH",
            "INTO",
            "VALUES",
            "TABLE",
            "LATERAL",
            "CURRENT",
            "TABLESAMPLE",
            "RETURNING",
            "CONFLICT",
            "INSERT",
            "UPDATE",
            "DELETE",
            "MERGE");

    private ReadOnlySubqueries() {}

    /**
     * The statement's tokens outside its {@code (SELECT ...)} groups, for {@link SkeletonFirst#plainWords}: the
     * statement itself when it has none; null when a group is one the lane declines.
     */
    static @Nullable List<Token> outside(List<Token> statement) {
        return outside(statement, false);
    }

    /**
     * {@link #outside(List)} of a WITH's queries before a write ({@link ReadOnlyWith}): a word spelled INSERT,
     * UPDATE, DELETE or MERGE inside them is admitted (not right after an opening bracket), a column label or a name
     * ({@code SELECT 1 AS update}); the one-write check does not count it either
     * ({@link StatementClassifier#dmlKeywordIndexes}): a data-modifying query of a WITH is the whole query of a
     * member, never inside a SELECT.
     */
    static @Nullable List<Token> outsideWith(List<Token> with) {
        return outside(with, true);
    }

    private static @Nullable List<Token> outside(List<Token> statement, boolean dmlWords) {
        if (!hasSubquery(statement)) {
            return statement;
        }
        List<Token> out = new ArrayList<>(statement.size());
        for (int k = 0; k < statement.size(); k++) {
            if (opensSubquery(statement, k)) {
                int close = TokenRuns.closing(statement, k);
                if (!readOnly(statement, k + 1, close, false, dmlWords)) {
                    return null;
                }
                out.add(statement.get(k));
                k = close;
            }
            out.add(statement.get(k));
        }
        return out;
    }

    /** Whether a {@code (SELECT} starts anywhere in {@code tokens}. */
    static boolean hasSubquery(List<Token> tokens) {
        for (int k = 0; k + 1 < tokens.size(); k++) {
            if (opensSubquery(tokens, k)) {
                return true;
            }
        }
        return false;
    }

    private static boolean opensSubquery(List<Token> tokens, int k) {
        return tokens.get(k).isSymbol("(")
                && k + 1 < tokens.size()
                && tokens.get(k + 1).isWord("SELECT");
    }

    /**
     * An INSERT's query source, {@code from} to {@code to} ({@code from} > 0), holds nothing a subquery may not
     * hold but VALUES lists ({@code VALUES ... UNION ...}, {@code FROM (VALUES ...) v}): read-only, and nothing the
     * parser's path would judge or put aside (WITH, INTO, ONLY, LATERAL, CURRENT, TABLESAMPLE, a row lock ...).
     */
    static boolean readOnlyQuery(List<Token> tokens, int from, int to) {
        return readOnly(tokens, from, to, true, false);
    }

    /**
     * The subquery's tokens {@code from} to {@code to} (its parentheses excluded) hold nothing declined; VALUES
     * lists when {@code valuesAllowed}, words spelled as a data-modifying keyword when {@code dmlWords}.
     */
    private static boolean readOnly(List<Token> tokens, int from, int to, boolean valuesAllowed, boolean dmlWords) {
        for (int k = from; k < to; k++) {
            Token t = tokens.get(k);
            if (t.kind() != Token.Kind.WORD) {
                continue;
            }
            Token before = tokens.get(k - 1);
            if (before.isSymbol(".")) {
                continue; // a field or column name (s.update), never a clause
            }
            String word = t.text().toUpperCase(Locale.ROOT);
            if (DECLINED_INSIDE.contains(word)
                    && !(valuesAllowed && word.equals("VALUES"))
                    && !(dmlWords && StatementClassifier.isDmlWord(t) && !before.isSymbol("("))) {
                return false;
            }
            if (word.equals("ONLY") && !(before.isWord("ROW") || before.isWord("ROWS"))) {
                return false; // FROM ONLY s; FETCH ... ROWS ONLY is a clause's end
            }
            if (word.equals("FOR") && k + 1 < to) {
                Token next = tokens.get(k + 1);
                if (next.isWord("UPDATE") || next.isWord("SHARE") || next.isWord("NO") || next.isWord("KEY")) {
                    return false; // a row lock
                }
            }
        }
        return true;
    }

    /**
     * The relative update of an UPDATE whose SET values hold a query, decided where the parser's path, the by-position
     * fallback ({@link SkeletonFencer#anyAssignedName}) and the lane's own reading agree: the lane's answer (the plain
     * values read as {@link SkeletonFirst#ownColumnRead}, a query value as {@link ColumnReferences#readsOwnRow}) is
     * the least any of them flags, the fallback's the most; the parser's path lies between. When the two differ the
     * parser's answer is not certain, and the statement is declined.
     *
     * @return the judgement, or null to decline
     */
    static @Nullable Relative relativeWithQueries(UpdateSkeleton update, @Nullable List<String> tableColumns) {
        List<List<Token>> plain = new ArrayList<>(update.values().size());
        String least = null;
        for (List<Token> value : update.values()) {
            if (ColumnReferences.holdsQuery(value)) {
                String read = ColumnReferences.readsOwnRow(value, update.columns(), update.qualifier(), tableColumns);
                least = least != null ? least : read;
            } else {
                plain.add(value);
            }
        }
        UpdateSkeleton plainPart = new UpdateSkeleton(
                update.target(), update.qualifier(), update.setEnd(), update.hasFrom(), update.columns(), plain);
        if (!SkeletonFirst.ownColumnsDecidable(plainPart, tableColumns)) {
            return null;
        }
        String plainRead = SkeletonFirst.ownColumnRead(plainPart);
        least = least != null ? least : plainRead;
        String most = SkeletonFencer.anyAssignedName(update, tableColumns);
        if ((least == null) != (most == null)) {
            return null;
        }
        return new Relative(least);
    }

    /** A relative update's judgement: the assigned column read, or null for none. */
    record Relative(@Nullable String column) {}
}
