package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The places fenced needs in an {@code INSERT INTO target [AS alias] (columns) [OVERRIDING ... VALUE] source
 * [ON CONFLICT ... DO NOTHING] [RETURNING ...]}, read from PostgreSQL's tokens with every expression a balanced run
 * of tokens: used where JSqlParser cannot read (or would change) the statement, as it does with composite-field and
 * subscripted target columns ({@code (f3.if1, a[1:2])}). The fence column joins the column list, and the token joins
 * each VALUES row, a plain SELECT's output list, or any other query through a wrapper around it; the rows and the list
 * also inside parentheses around the whole source ({@link #inner}), as {@link InsertFencer} places it.
 *
 * <p>Not read (null), so the statement stays refused: no column list (the values' columns are known by position
 * only), {@code ON CONFLICT ... DO UPDATE} (its SET needs the guard), three-part names, a lone VALUES list whose row
 * widths differ from the column list's, {@code DEFAULT VALUES}, unbalanced brackets. VALUES followed by a set
 * operation, ORDER BY, LIMIT, OFFSET or FETCH is a query and is wrapped.
 *
 * @param target        the target as written, folded
 * @param columns       the first name of each target column, folded ({@code f3} of {@code f3.if1})
 * @param columnListEnd the index of the column list's closing parenthesis: the fence column goes before it
 * @param tokenBefore   the indexes before which the token goes: each VALUES row's closing parenthesis, or the end
 *                      of a plain SELECT's output list (inside any parentheses around the whole source)
 * @param queryStart    with {@code queryEnd}, a query to wrap as {@code SELECT fenced_src.*, <token> FROM (query)
 *                      AS fenced_src}; -1 when the token has its places in {@code tokenBefore}
 * @param queryEnd      the index after the query's last token
 * @param sourceStart   the index of the source's first token (VALUES, SELECT, a parenthesis ...)
 * @param sourceEnd     the index after the source's last token: its ON CONFLICT's ON, RETURNING, or the end
 */
record InsertSkeleton(
        TableName target,
        List<String> columns,
        int columnListEnd,
        List<Integer> tokenBefore,
        int queryStart,
        int queryEnd,
        int sourceStart,
        int sourceEnd) {

    /** Top-level words that end a plain SELECT's output list. */
    private static final Set<String> AFTER_OUTPUT =
            Set.of("FROM", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER", "LIMIT", "OFFSET", "FETCH", "FOR");

    /** Top-level words that make a query more than one plain SELECT. */
    private static final Set<String> SET_OPERATIONS = Set.of("UNION", "INTERSECT", "EXCEPT");

    static @Nullable InsertSkeleton read(List<Token> tokens) {
        return read(tokens, false);
    }

    /**
     * @param conflictUpdate also read an INSERT with {@code ON CONFLICT ... DO UPDATE}, whose clause the caller
     *                       reads and fences ({@link ConflictClause}); the source's places are the same
     */
    static @Nullable InsertSkeleton read(List<Token> tokens, boolean conflictUpdate) {
        if (tokens.size() < 3
                || !tokens.get(0).isWord("INSERT")
                || !tokens.get(1).isWord("INTO")
                || !TokenRuns.balanced(tokens)) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        int i = TokenRuns.target(tokens, 2, parts);
        if (i < 0) {
            return null;
        }
        if (i + 1 < tokens.size() && tokens.get(i).isWord("AS") && TokenRuns.isName(tokens.get(i + 1))) {
            i += 2; // INSERT's alias needs AS
        }
        if (i >= tokens.size() || !tokens.get(i).isSymbol("(")) {
            return null;
        }
        int listEnd = TokenRuns.closing(tokens, i);
        List<String> columns = columnNames(tokens, i + 1, listEnd);
        if (columns == null) {
            return null;
        }
        i = listEnd + 1;
        if (i < tokens.size() && tokens.get(i).isWord("OVERRIDING")) {
            if (i + 2 >= tokens.size()
                    || !(tokens.get(i + 1).isWord("SYSTEM") || tokens.get(i + 1).isWord("USER"))
                    || !tokens.get(i + 2).isWord("VALUE")) {
                return null;
            }
            i += 3;
        }
        int sourceEnd = sourceEnd(tokens, i);
        if (sourceEnd <= i || !conflictUpdate && !conflictDoesNothing(tokens, sourceEnd)) {
            return null;
        }
        TableName target = new TableName(
                parts.size() == 2 ? TableName.fold(parts.get(0)) : null, TableName.fold(parts.get(parts.size() - 1)));
        Inner inner = inner(tokens, i, sourceEnd);
        List<Integer> rows = inner.clauses() ? null : valuesRows(tokens, inner.from(), inner.to(), columns.size());
        if (rows != null) {
            return rows.isEmpty() ? null : new InsertSkeleton(target, columns, listEnd, rows, -1, -1, i, sourceEnd);
        }
        if (tokens.get(i).isWord("DEFAULT")) {
            return null; // DEFAULT VALUES after a column list: PostgreSQL rejects it
        }
        // VALUES with a set operation, ORDER BY, LIMIT ... after its rows is a query, wrapped as any other (a row of
        // another width than the column list fails in PostgreSQL alike, wrapped or not)
        int outputEnd = plainSelectOutputEnd(tokens, inner.from(), inner.to());
        if (outputEnd > 0) {
            return new InsertSkeleton(target, columns, listEnd, List.of(outputEnd), -1, -1, i, sourceEnd);
        }
        return new InsertSkeleton(target, columns, listEnd, List.of(), i, sourceEnd, i, sourceEnd);
    }

    /**
     * The query inside the parentheses around a source, as PostgreSQL reads it: parentheses around the whole source
     * leave no trace in its parse tree, and an ORDER BY, LIMIT, OFFSET, FETCH or row lock after them is merged into
     * the query inside ({@code (SELECT '5') LIMIT 1} is {@code SELECT '5' LIMIT 1}, whose untyped literals the target
     * columns type, where a wrapper would type them as text first). A set operation after them makes the whole a
     * query of its own, read no further.
     *
     * @param from    the first token of the innermost query
     * @param to      the index after its last token
     * @param clauses whether a clause stood after parentheses (a VALUES inside is then a query, not rows)
     */
    private record Inner(int from, int to, boolean clauses) {}

    /** Words after the parentheses around a source that PostgreSQL merges into the query inside. */
    private static final Set<String> MERGED_AFTER = Set.of("ORDER", "LIMIT", "OFFSET", "FETCH", "FOR");

    private static Inner inner(List<Token> tokens, int from, int to) {
        int start = from;
        int end = to;
        boolean clauses = false;
        while (start < end && tokens.get(start).isSymbol("(")) {
            int close = TokenRuns.closing(tokens, start);
            if (close + 1 < end) {
                Token after = tokens.get(close + 1);
                boolean merged = after.kind() == Token.Kind.WORD
                        && MERGED_AFTER.contains(after.text().toUpperCase(Locale.ROOT))
                        && TokenRuns.firstTopLevel(
                                        tokens,
                                        close + 1,
                                        (ts, k) -> SET_OPERATIONS.contains(
                                                        ts.get(k).text().toUpperCase(Locale.ROOT))
                                                && ts.get(k).kind() == Token.Kind.WORD)
                                >= end;
                if (!merged) {
                    break;
                }
                clauses = true;
            }
            start++;
            end = close;
        }
        return new Inner(start, end, clauses);
    }

    /** The target columns' first names, or null unless each item is a name with fields or subscripts after it. */
    private static @Nullable List<String> columnNames(List<Token> tokens, int from, int to) {
        List<String> names = new ArrayList<>();
        boolean expectName = true;
        int depth = 0;
        for (int k = from; k < to; k++) {
            Token t = tokens.get(k);
            if (expectName) {
                if (!TokenRuns.isName(t)) {
                    return null;
                }
                names.add(TableName.fold(t.text()));
                expectName = false;
            } else if (t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isSymbol(",")) {
                expectName = true;
            } else if (depth == 0 && !t.isSymbol(".") && !TokenRuns.isName(t)) {
                return null;
            }
        }
        return expectName ? null : names;
    }

    /** The index of the top-level ON (of ON CONFLICT) or RETURNING after {@code from}, or the end. */
    private static int sourceEnd(List<Token> tokens, int from) {
        return TokenRuns.firstTopLevel(
                tokens,
                from,
                (ts, k) -> ts.get(k).isWord("RETURNING")
                        || ts.get(k).isWord("ON")
                                && k + 1 < ts.size()
                                && ts.get(k + 1).isWord("CONFLICT"));
    }

    /** No ON CONFLICT at {@code at}, or one whose action is DO NOTHING. */
    private static boolean conflictDoesNothing(List<Token> tokens, int at) {
        if (at >= tokens.size() || !tokens.get(at).isWord("ON")) {
            return true;
        }
        int depth = 0;
        for (int k = at; k + 1 < tokens.size(); k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isWord("DO")) {
                return tokens.get(k + 1).isWord("NOTHING");
            }
        }
        return false;
    }

    /**
     * The closing parenthesis of each row when the source is nothing but {@code VALUES (...), (...)} whose rows each
     * hold {@code width} values; an empty list for VALUES rows of another width; null for any other source (VALUES
     * followed by ORDER BY, LIMIT or a set operation is a query).
     */
    private static @Nullable List<Integer> valuesRows(List<Token> tokens, int from, int to, int width) {
        if (!tokens.get(from).isWord("VALUES")) {
            return null;
        }
        List<Integer> ends = new ArrayList<>();
        boolean wide = true;
        int k = from + 1;
        while (true) {
            if (k >= to || !tokens.get(k).isSymbol("(")) {
                return null;
            }
            int end = TokenRuns.closing(tokens, k);
            wide &= topLevelItems(tokens, k + 1, end) == width;
            ends.add(end);
            k = end + 1;
            if (k == to) {
                return wide ? ends : List.of();
            }
            if (!tokens.get(k).isSymbol(",")) {
                return null;
            }
            k++;
        }
    }

    /**
     * The index after a plain {@code SELECT}'s output list, where one more output column goes; -1 when the source
     * is another query (a set operation, WITH, VALUES with clauses), which is wrapped instead; the caller passes the
     * query inside parentheses around the whole source ({@link #inner}).
     */
    private static int plainSelectOutputEnd(List<Token> tokens, int from, int to) {
        if (!tokens.get(from).isWord("SELECT")) {
            return -1;
        }
        int depth = 0;
        int outputEnd = -1;
        for (int k = from + 1; k < to; k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.kind() == Token.Kind.WORD && TokenRuns.isKeyword(tokens, k)) {
                String word = t.text().toUpperCase(Locale.ROOT);
                if (SET_OPERATIONS.contains(word) || word.equals("INTO")) {
                    return -1;
                }
                // IS [NOT] DISTINCT FROM and WITHIN GROUP are inside an expression
                boolean operator = word.equals("FROM") && tokens.get(k - 1).isWord("DISTINCT")
                        || word.equals("GROUP") && tokens.get(k - 1).isWord("WITHIN");
                if (outputEnd < 0 && AFTER_OUTPUT.contains(word) && !operator) {
                    outputEnd = k;
                }
            }
        }
        if (outputEnd < 0) {
            outputEnd = to;
        }
        // SELECT with nothing to output, or SELECT DISTINCT (ON (...)) with nothing after it: not a list to extend
        Token last = tokens.get(outputEnd - 1);
        return last.isWord("SELECT") || last.isWord("DISTINCT") || last.isWord("ALL") ? -1 : outputEnd;
    }

    private static int topLevelItems(List<Token> tokens, int from, int to) {
        if (from == to) {
            return 0;
        }
        int items = 1;
        int depth = 0;
        for (int k = from; k < to; k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            } else if (depth == 0 && t.isSymbol(",")) {
                items++;
            }
        }
        return items;
    }
}
