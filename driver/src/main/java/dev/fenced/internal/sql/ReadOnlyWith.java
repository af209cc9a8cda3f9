package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A WITH of read-only queries before a write, for {@link SkeletonFirst}: {@code WITH [RECURSIVE] name [(columns)] AS
 * [[NOT] MATERIALIZED] (SELECT ...), ... <UPDATE | DELETE | INSERT> ...}. The lane plans the write after it as it
 * plans the write alone, the WITH kept as written in front: nothing the lane or the parser's path judges reads the
 * WITH (neither path looks into its queries), and PostgreSQL resolves the write's target to the table, never to a
 * query of the WITH. Each query is one the lane admits as a read-only subquery ({@link ReadOnlySubqueries}: no data
 * modification, INTO, row lock, TABLESAMPLE, nested WITH ...), so it reads and cannot write; the one-write check
 * before the lane counts every data-modifying keyword.
 *
 * <p>What a query's name could make the lane read differently from the parser's path is declined by the caller
 * ({@link #shadows}): a query named like the target or its alias, which subqueries of the write would see instead
 * of the table. A DELETE, whose WHERE fenced evaluates twice, is refused when its WHERE may evaluate a query that
 * could pick other rows the second time ({@link WithQuery#refuseUnrepeatable}, which the parser's path runs on the
 * same queries).
 *
 * @param names     the queries' names, folded and lowered
 * @param queries   each query as {@link WithQuery} reads it
 * @param statement the write after the WITH: the piece's tokens from its data-modifying keyword
 */
record ReadOnlyWith(Set<String> names, List<WithQuery> queries, List<Token> statement) {

    /**
     * The WITH before the write at {@code write} (the index of the piece's one data-modifying keyword), or null when
     * the piece does not start with one the lane reads.
     */
    static @Nullable ReadOnlyWith read(List<Token> piece, int write) {
        if (write < 6 || !piece.get(0).isWord("WITH") || !TokenRuns.balanced(piece.subList(0, write))) {
            return null;
        }
        Set<String> names = new HashSet<>();
        List<WithQuery> queries = new ArrayList<>();
        int k = piece.get(1).isWord("RECURSIVE") ? 2 : 1;
        while (true) {
            if (k + 4 >= write) {
                return null; // no room for name AS (SELECT ...) before the write
            }
            int start = k;
            Token name = piece.get(k);
            if (!TokenRuns.isName(name) || !names.add(lower(name.text()))) {
                return null; // not a name, or a second query of one name (an error PostgreSQL reports)
            }
            k++;
            if (piece.get(k).isSymbol("(")) {
                int close = TokenRuns.closing(piece, k);
                if (!plainNames(piece, k + 1, close)) {
                    return null;
                }
                k = close + 1;
            }
            if (!piece.get(k).isWord("AS")) {
                return null;
            }
            k++;
            if (k + 1 >= write) {
                return null;
            }
            if (piece.get(k).isWord("NOT") && piece.get(k + 1).isWord("MATERIALIZED")) {
                k += 2;
            } else if (piece.get(k).isWord("MATERIALIZED")) {
                k++;
            }
            if (k + 1 >= write
                    || !piece.get(k).isSymbol("(")
                    || !piece.get(k + 1).isWord("SELECT")) {
                return null;
            }
            int close = TokenRuns.closing(piece, k);
            queries.add(java.util.Objects.requireNonNull(
                    WithQuery.read(piece.subList(start, close + 1)), "a member read above reads as a query"));
            k = close + 1;
            if (k == write) {
                break;
            }
            if (!piece.get(k).isSymbol(",") || ++k >= write) {
                return null; // SEARCH, CYCLE, or anything else between the queries and the write
            }
        }
        // every query a read-only subquery as the lane admits one (its groups judged by the same reading)
        if (ReadOnlySubqueries.outsideWith(piece.subList(0, write)) == null) {
            return null;
        }
        return new ReadOnlyWith(names, queries, piece.subList(write, piece.size()));
    }

    private static String lower(String written) {
        return WithQuery.lower(written);
    }

    /** {@code from} to {@code to} is {@code name, name, ...}: a query's column names. */
    private static boolean plainNames(List<Token> tokens, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int k = from; k < to; k++) {
            boolean name = (k - from) % 2 == 0;
            if (name ? !TokenRuns.isName(tokens.get(k)) : !tokens.get(k).isSymbol(",")) {
                return false;
            }
        }
        return (to - from) % 2 == 1;
    }

    /**
     * A query is named like {@code target}'s own name or {@code qualifier} (the target's alias, else its bare name,
     * as written): the write's subqueries would read the query where the name reads the table in its own clauses.
     */
    boolean shadows(TableName target, @Nullable String qualifier) {
        return names.contains(target.name().toLowerCase(java.util.Locale.ROOT))
                || qualifier != null && names.contains(lower(qualifier));
    }

    /** A name of {@code tokens} (an INSERT's target and alias, the tokens before its column list) names a query. */
    boolean shadowsAny(List<Token> tokens) {
        for (Token t : tokens) {
            if (TokenRuns.isName(t) && names.contains(lower(t.text()))) {
                return true;
            }
        }
        return false;
    }
}
