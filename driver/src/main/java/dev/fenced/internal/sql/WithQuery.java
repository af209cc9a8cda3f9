package dev.fenced.internal.sql;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One query of a WITH in scope of a condition fenced evaluates twice (a DELETE's WHERE, a MERGE DELETE's
 * {@code WHEN ... AND} condition), as both paths judge it ({@link #refuseUnrepeatable}): the lane reads it from the
 * user's tokens ({@link ReadOnlyWith}), the parser's path from JSqlParser's printout of each {@code WithItem}, whose
 * tokens the fidelity check compared with the user's.
 *
 * <p>A query read in the condition is evaluated where PostgreSQL (12 and later) decides: a non-recursive query with
 * no side effects is inlined (evaluated at each reference) when it is {@code NOT MATERIALIZED}, or when it has no
 * such option and is referenced once; otherwise it is computed once for the statement and every reference reads
 * that one result. fenced repeats the condition, so a query referenced in it is referenced at least twice in what
 * fenced sends: without an option it is computed once, whatever the user wrote; {@code NOT MATERIALIZED} is
 * evaluated once for each copy, and may pick other rows the second time.
 *
 * @param name         the query's name, folded and lowered (compared so, a name that may fold either way is a match)
 * @param materialized how the query was written: {@code MATERIALIZED}, {@code NOT MATERIALIZED} or neither
 * @param body         the query's tokens
 */
record WithQuery(String name, Materialized materialized, List<Token> body) {

    /** The query's materialization option as written. */
    enum Materialized {
        /** {@code MATERIALIZED}: computed once. */
        ALWAYS,
        /** {@code NOT MATERIALIZED}: inlined wherever it is referenced (unless PostgreSQL cannot). */
        NEVER,
        /** No option: inlined only when referenced once. */
        DEFAULT
    }

    /**
     * The query {@code member} holds, {@code name [(columns)] AS [[NOT] MATERIALIZED] (query) ...}; null when the
     * tokens do not read so (the caller judges such a member as a {@code NOT MATERIALIZED} query of all its tokens).
     */
    static @Nullable WithQuery read(List<Token> member) {
        if (member.size() < 4 || !TokenRuns.isName(member.get(0)) || !TokenRuns.balanced(member)) {
            return null;
        }
        int k = 1;
        if (member.get(k).isSymbol("(")) {
            k = TokenRuns.closing(member, k) + 1;
        }
        if (k >= member.size() || !member.get(k).isWord("AS")) {
            return null;
        }
        k++;
        Materialized materialized = Materialized.DEFAULT;
        if (k + 1 < member.size()
                && member.get(k).isWord("NOT")
                && member.get(k + 1).isWord("MATERIALIZED")) {
            materialized = Materialized.NEVER;
            k += 2;
        } else if (k < member.size() && member.get(k).isWord("MATERIALIZED")) {
            materialized = Materialized.ALWAYS;
            k++;
        }
        if (k + 1 >= member.size() || !member.get(k).isSymbol("(")) {
            return null;
        }
        int close = TokenRuns.closing(member, k);
        return new WithQuery(lower(member.get(0).text()), materialized, member.subList(k + 1, close));
    }

    /** A name folded, then lowered: compared so, a name that may fold either way in some database is a match. */
    static String lower(String written) {
        return TableName.fold(written).toLowerCase(Locale.ROOT);
    }

    /** A data-modifying query: run exactly once, never inlined (its body's first word is the write's). */
    private boolean writes() {
        return !body.isEmpty() && StatementClassifier.isDmlWord(body.get(0));
    }

    /** Whether a name of {@code tokens} is spelled as this query's name: a reference to it, or maybe one. */
    boolean mentionedIn(List<Token> tokens) {
        for (Token t : tokens) {
            if (TokenRuns.isName(t) && lower(t.text()).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * What in the query may pick other rows when it is evaluated again (as {@link DeleteFencer#refuseUnrepeatable}
     * judges a WHERE: a volatile function, or one the catalog read did not know; an unordered LIMIT, OFFSET or FETCH;
     * a row lock; TABLESAMPLE), described for the refusal; null when nothing, or when the query writes (a
     * data-modifying query of a WITH is run exactly once).
     */
    private @Nullable String unrepeatable(FencingTargets targets) {
        if (writes()) {
            return null;
        }
        String fn = DeleteFencer.volatileFunctionIn(body, targets);
        if (fn != null) {
            return "calls the volatile function " + fn + "() (volatile, or created since the last catalog read)";
        }
        String subquery = DeleteFencer.unrepeatableSubqueryIn(body);
        return subquery == null ? null : "has " + subquery;
    }

    /**
     * Refuses the condition {@code condition} fenced evaluates twice when a query of the WITH in scope,
     * {@code with}, could give the two evaluations different rows: a query that holds what a WHERE is refused for
     * ({@link #unrepeatable}) and that the repeated condition may evaluate once per copy. That is a
     * {@code NOT MATERIALIZED} query the condition names, or a query other than a {@code MATERIALIZED} one that
     * another query of the WITH (not a {@code MATERIALIZED} or data-modifying one) names: it may be inlined into a
     * query the copies each evaluate, which is not told apart lexically, so refused. A query without option that only the condition names is referenced twice in the fenced text, so
     * PostgreSQL computes it once; a query neither names is not evaluated by the copies at all. The one judgement of
     * both paths, with the same words.
     *
     * @param statement what the refusal names ({@code DELETE whose WHERE})
     * @param conditionName how it names the condition again ({@code the WHERE})
     */
    static void refuseUnrepeatable(
            List<WithQuery> with,
            List<Token> condition,
            String statement,
            String conditionName,
            ProtectedTable table,
            FencingTargets targets)
            throws Refusal {
        for (WithQuery query : with) {
            if (query.materialized == Materialized.ALWAYS) {
                continue; // computed once for the statement, whatever reads it
            }
            boolean inOther = false;
            for (WithQuery other : with) {
                // a query inlined into a MATERIALIZED or a data-modifying one is evaluated once, with it (the
                // condition inside a data-modifying one is judged as the condition below)
                inOther |= other != query
                        && other.materialized != Materialized.ALWAYS
                        && !other.writes()
                        && query.mentionedIn(other.body);
            }
            boolean evaluatedPerCopy =
                    inOther || query.materialized == Materialized.NEVER && query.mentionedIn(condition);
            if (!evaluatedPerCopy) {
                continue;
            }
            String unrepeatable = query.unrepeatable(targets);
            if (unrepeatable != null) {
                throw new Refusal(
                        table.displayName(),
                        statement + " reads the WITH query " + query.name + ", which " + unrepeatable + " and is "
                                + (query.materialized == Materialized.NEVER
                                        ? "NOT MATERIALIZED"
                                        : "read by another" + " query of the WITH")
                                + ": fenced evaluates " + conditionName + " twice to check only the rows it deletes,"
                                + " and PostgreSQL may evaluate " + query.name + " once for each, picking different"
                                + " rows (write it AS MATERIALIZED)");
            }
        }
    }
}
