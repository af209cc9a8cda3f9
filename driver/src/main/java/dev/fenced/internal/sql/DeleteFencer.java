package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.statement.delete.Delete;
import org.jspecify.annotations.Nullable;

/**
 * DELETE: the stale check goes behind the statement's own WHERE. That WHERE is printed twice, so
 * anything in it that can give a different answer the second time would change which rows go (the
 * DELETE would remove only the rows both evaluations picked): a volatile function (random(), nextval(),
 * ...), a subquery that locks rows (FOR UPDATE ... SKIP LOCKED: the queue pattern, where a worker rolling
 * back between the two evaluations hands the second one another row), a TABLESAMPLE, or a LIMIT/OFFSET
 * with no ORDER BY to decide which rows it keeps. Such a DELETE is refused rather than changed in meaning.
 */
final class DeleteFencer {

    private DeleteFencer() {}

    /**
     * @param with the queries of the WITH in scope of the DELETE ({@link WithQuery}: its own, and the top-level
     *             WITH it is a query of), which its WHERE may read
     */
    static void fence(Delete delete, ProtectedTable table, FenceContext ctx, List<WithQuery> with) throws Refusal {
        if ((delete.getTables() != null && !delete.getTables().isEmpty())
                || delete.getOrderByElements() != null
                || delete.getLimit() != null
                || delete.getOutputClause() != null) {
            throw new Refusal(
                    table.displayName(),
                    "DELETE with several targets, ORDER BY, LIMIT or OUTPUT" + " (not PostgreSQL syntax)");
        }
        if (table.mode() == FencingMode.OBSERVE) {
            return; // nothing to record on a row that goes away; observe never refuses
        }
        if (delete.getWhere() != null) {
            refuseUnrepeatable(SqlLexer.tokenize(delete.getWhere().toString()), with, table, ctx.targets);
        }
        delete.setWhere(guardedWhere(
                delete.getWhere(),
                FenceContext.qualifier(delete.getTable()),
                StarTable.plain(delete.getTable()).getFullyQualifiedName(),
                table,
                ctx));
    }

    /**
     * Refuses a DELETE (enforce mode) whose WHERE, {@code where} as tokens, may give a different answer when evaluated
     * the second time: a volatile function, or a subquery that may select other rows then. Shared by the parser's
     * path and the one by position ({@link SkeletonFencer}), so both refuse alike, with the same words.
     */
    static void refuseUnrepeatable(List<Token> where, ProtectedTable table, FencingTargets targets) throws Refusal {
        refuseUnrepeatable(where, List.of(), table, targets);
    }

    /**
     * {@link #refuseUnrepeatable(List, ProtectedTable, FencingTargets)}, and the queries of the WITH in scope,
     * {@code with}, that the repeated WHERE may evaluate once per copy ({@link WithQuery#refuseUnrepeatable}).
     */
    static void refuseUnrepeatable(
            List<Token> where, List<WithQuery> with, ProtectedTable table, FencingTargets targets) throws Refusal {
        refuseUnrepeatable(where, "DELETE whose WHERE", "the WHERE", table, targets);
        WithQuery.refuseUnrepeatable(with, where, "DELETE whose WHERE", "the WHERE", table, targets);
    }

    /**
     * {@link #refuseUnrepeatable(List, ProtectedTable, FencingTargets)} of any condition fenced evaluates twice: a
     * DELETE's WHERE, or a MERGE's {@code WHEN ... AND c THEN DELETE} condition (evaluated again inside the check,
     * where a different answer would send the row to a later WHEN clause).
     *
     * @param statement what the refusal names ({@code DELETE whose WHERE})
     * @param condition how it names the condition again ({@code the WHERE})
     */
    static void refuseUnrepeatable(
            List<Token> where, String statement, String condition, ProtectedTable table, FencingTargets targets)
            throws Refusal {
        String fn = volatileFunctionIn(where, targets);
        if (fn != null) {
            throw new Refusal(
                    table.displayName(),
                    statement + " calls the volatile function " + fn
                            + "() (volatile, or created since the last catalog read): fenced evaluates " + condition
                            + " twice to check only the rows it deletes");
        }
        String subquery = unrepeatableSubqueryIn(where);
        if (subquery != null) {
            throw new Refusal(
                    table.displayName(),
                    statement + " has a subquery with " + subquery
                            + ": fenced evaluates " + condition + " twice to check only the rows it deletes, and the"
                            + " two evaluations could pick different rows");
        }
    }

    /** What a MERGE DELETE's refusal of an unrepeatable condition says, on both paths. */
    static final String MERGE_DELETE = "MERGE ... THEN DELETE whose WHEN condition";

    /**
     * The enforced DELETE's whole condition: the stale check behind {@code where} ({@link Guards#deleteWhere}; null:
     * the DELETE has none) and, when the table keeps tombstones, the token's hand-over behind that
     * ({@link Tombstones#recordDeletes}). The one builder of a DELETE's fragments: {@link SkeletonFencer} prints it
     * around a placeholder for the WHERE it keeps as written.
     *
     * @param qualifier    how the statement names the target's row (its alias, else its bare name)
     * @param writtenTable the target's name as written, without alias
     */
    static Expression guardedWhere(
            @Nullable Expression where, String qualifier, String writtenTable, ProtectedTable table, FenceContext ctx)
            throws Refusal {
        Expression guarded = Guards.deleteWhere(where, qualifier, table.column(), table.displayName(), ctx.tokenIndex);
        Expression handOver = Tombstones.recordDeletes(writtenTable, table, ctx);
        return handOver == null ? guarded : new AndExpression(guarded, handOver);
    }

    /**
     * Lexically, like {@link #volatileFunctionIn}: what in a WHERE's subqueries may select other rows when
     * evaluated again, described for the refusal; null when nothing. These keywords are reserved, so as
     * words they can only be clauses of a subquery. A LIMIT, OFFSET or FETCH is accepted when its own query
     * level (parenthesis depth) has an ORDER BY before it.
     */
    static @Nullable String unrepeatableSubqueryIn(List<Token> tokens) {
        Deque<Boolean> ordered = new ArrayDeque<>();
        ordered.push(false);
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
            if (t.isSymbol("(")) {
                ordered.push(false);
            } else if (t.isSymbol(")") && ordered.size() > 1) {
                ordered.pop();
            } else if (t.isWord("ORDER") && next != null && next.isWord("BY")) {
                ordered.pop();
                ordered.push(true);
            } else if (t.isWord("FOR")
                    && next != null
                    && (next.isWord("UPDATE") || next.isWord("SHARE") || next.isWord("NO") || next.isWord("KEY"))) {
                return "FOR " + next.text().toUpperCase(Locale.ROOT) + " (a row lock)";
            } else if (t.isWord("TABLESAMPLE")) {
                return "TABLESAMPLE";
            } else if ((t.isWord("LIMIT") || t.isWord("OFFSET") || t.isWord("FETCH")) && !ordered.peek()) {
                return t.text().toUpperCase(Locale.ROOT) + " but no ORDER BY";
            }
        }
        return null;
    }

    /**
     * Lexically, subqueries included: a call the catalog read says may be volatile, in any of the three ways
     * PostgreSQL spells one. {@code name(...)} whose name is a volatile function (or one the read did not know:
     * created since, its volatility unknown); {@code x.name} or {@code (x).name}, attribute notation, which calls
     * {@code name(x)} when no column has that name (a volatile function's name there is refused, whether or not it is
     * a column); and an operator whose function is volatile ({@code a ~~~ b}, {@code OPERATOR(s.~~~)}), or one the
     * read did not know. The catalog read lists operators among the function names ({@code CatalogInspector}).
     */
    static @Nullable String volatileFunctionIn(List<Token> tokens, FencingTargets targets) {
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() == Token.Kind.SYMBOL) {
                String operator = t.text().equals("!=") ? "<>" : t.text();
                if (!PUNCTUATION.contains(operator)
                        && (targets.isVolatile(operator) || targets.isUnknownFunction(operator))) {
                    return operator;
                }
                continue;
            }
            if (t.kind() != Token.Kind.WORD && t.kind() != Token.Kind.QUOTED_IDENTIFIER) {
                continue;
            }
            String name = dev.fenced.internal.config.TableName.fold(t.text());
            if (i > 0 && tokens.get(i - 1).isSymbol(".") && targets.isVolatile(name)) {
                return t.text();
            }
            if (i + 1 < tokens.size()
                    && tokens.get(i + 1).isSymbol("(")
                    && (targets.isVolatile(name) || (targets.isUnknownFunction(name) && isCall(tokens, i)))) {
                return t.text();
            }
        }
        return null;
    }

    /** Symbols PostgreSQL's grammar reads as punctuation, never as an operator it looks up in pg_operator. */
    private static final java.util.Set<String> PUNCTUATION =
            java.util.Set.of("(", ")", "[", "]", ",", ";", ".", ":", "::", ":=", "=>", "..");

    /** Words before a parenthesis that are not function names. */
    private static final java.util.Set<String> NOT_CALLS = java.util.Set.of(
            "over",
            "filter",
            "varying",
            "within",
            "precision",
            "zone",
            "bernoulli",
            "system",
            "lateral",
            "rows",
            "range",
            "groups",
            "cube",
            "rollup",
            "sets");

    /**
     * Whether the word at {@code i} (followed by a parenthesis, its name unknown to the catalog read) is called as
     * a function: not a keyword, and not an alias with a column list ({@code x(k)}, after a name, {@code AS} or
     * a closing parenthesis).
     */
    private static boolean isCall(List<Token> tokens, int i) {
        Token t = tokens.get(i);
        String folded = dev.fenced.internal.config.TableName.fold(t.text());
        if (t.kind() == Token.Kind.WORD
                && (dev.fenced.internal.config.TableName.isKeyword(folded) || NOT_CALLS.contains(folded))) {
            return false;
        }
        if (i == 0) {
            return true;
        }
        Token before = tokens.get(i - 1);
        if (before.isSymbol(")") || before.isWord("AS") || before.kind() == Token.Kind.QUOTED_IDENTIFIER) {
            return false;
        }
        if (before.kind() == Token.Kind.WORD) {
            return dev.fenced.internal.config.TableName.isKeyword(
                            dev.fenced.internal.config.TableName.fold(before.text()))
                    || before.isWord("BY")
                    || before.isWord("IS");
        }
        return true; // an operator, a comma, an opening parenthesis, a dot of a qualified name
    }
}
