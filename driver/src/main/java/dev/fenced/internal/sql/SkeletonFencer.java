package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import net.sf.jsqlparser.schema.Column;
import org.jspecify.annotations.Nullable;

/**
 * Fences, by position, one UPDATE ({@link UpdateSkeleton}), INSERT ({@link InsertSkeleton}), DELETE
 * ({@link DeleteSkeleton}) or MERGE ({@link MergeSkeleton}, {@link MergeByPosition}) that JSqlParser cannot read or would change, or that {@link SkeletonFirst} plans first: the user's text is kept token for token and fenced's fragments go where the skeleton placed
 * them. The result is checked the way the parser's output is: lexed as PostgreSQL lexes it, it must be exactly the
 * user's tokens with the fragments in their places, losing nothing ({@link SentText}).
 */
final class SkeletonFencer {

    /** The alias of a query the token is added around; the parser's path uses the same name. */
    private static final String SOURCE_ALIAS = "fenced_src";

    private final FencingTargets targets;
    private final RelativeUpdatePolicy relativePolicy;
    private final String sql;
    private final List<Token> tokens;
    private final List<Token> statement;

    /**
     * @param statement the one statement of {@code tokens} (without a trailing {@code ;})
     */
    SkeletonFencer(
            FencingTargets targets,
            RelativeUpdatePolicy relativePolicy,
            String sql,
            List<Token> tokens,
            List<Token> statement) {
        this.targets = targets;
        this.relativePolicy = relativePolicy;
        this.sql = sql;
        this.tokens = tokens;
        this.statement = statement;
    }

    /** The fenced plan, or null when the statement is not read or does not write a protected table. */
    RewritePlan.@Nullable Fenced fence(boolean tokenMayBeNull) throws Refusal {
        UpdateSkeleton update = UpdateSkeleton.read(statement);
        if (update != null) {
            ProtectedTable table = protectedTable(update.target(), update.columns());
            if (table == null) {
                return null;
            }
            // FROM plain tables: judged as the lane judges it where it can tell, so both paths agree on what JSqlParser
            // cannot read (o.n, a FROM item's column, is no relative update); else conservatively, any assigned name
            ReadOnlySubqueries.Relative beside = update.hasFrom() ? relativeBesideFrom(update, table) : null;
            return update(
                    update,
                    table,
                    beside != null ? beside.column() : anyAssignedName(update, columnsOf(table)),
                    tokenMayBeNull);
        }
        InsertSkeleton insert = InsertSkeleton.read(statement);
        if (insert != null) {
            ProtectedTable table = protectedTable(insert.target(), insert.columns());
            return table == null ? null : insert(insert, null, table, tokenMayBeNull);
        }
        DeleteSkeleton delete = DeleteSkeleton.read(statement);
        if (delete != null) {
            ProtectedTable table = protectedTable(delete.target(), List.of());
            // a USING list as the lane plans it, or the parser's refusal stands (both paths fence it alike)
            return table == null || !usingBesideTarget(delete)
                    ? null
                    : delete(delete, table, tokenMayBeNull, List.of());
        }
        MergeSkeleton merge = MergeSkeleton.read(statement);
        if (merge != null) {
            ProtectedTable table = protectedTable(merge.target(), List.of());
            return table == null ? null : merge(merge, table, tokenMayBeNull);
        }
        // INSERT ... ON CONFLICT DO UPDATE, which InsertSkeleton does not read alone: fenced where the lane would
        // fence it, else the parser's refusal stands (the lane's plan and the parser's path's are one)
        return insertFirst(tokenMayBeNull, null);
    }

    /**
     * The fenced plan of a statement {@link SkeletonFirst} reads fully, planned before the parser is asked; null for
     * any other statement, a statement that writes no protected table, or one that would be refused: declined, the
     * parser's path plans it (and refuses it with its own reason).
     */
    RewritePlan.@Nullable Fenced fenceFirst(boolean tokenMayBeNull) {
        return fenceFirst(tokenMayBeNull, null);
    }

    /**
     * {@link #fenceFirst(boolean)} of the write after a WITH of read-only queries ({@code with}; null: none), the
     * statement this fencer was made with being {@link ReadOnlyWith#statement()}: the WITH is kept as written in
     * front, and a write whose names could read a query of the WITH is declined ({@link ReadOnlyWith#shadows}).
     */
    RewritePlan.@Nullable Fenced fenceFirst(boolean tokenMayBeNull, @Nullable ReadOnlyWith with) {
        try {
            UpdateSkeleton update = UpdateSkeleton.read(statement);
            if (update != null) {
                if (with != null && with.shadows(update.target(), update.qualifier())) {
                    return null;
                }
                // the words outside read-only subqueries are judged as any statement's ({@link ReadOnlySubqueries})
                List<Token> outside = ReadOnlySubqueries.outside(statement);
                if (outside == null
                        || !SkeletonFirst.plainWords(outside, -1)
                        || !SkeletonFirst.plainSetTargets(statement, update.setEnd())) {
                    return null;
                }
                ProtectedTable table = protectedTable(update.target(), update.columns());
                if (table == null) {
                    return null;
                }
                String relative;
                if (update.hasFrom()) {
                    ReadOnlySubqueries.Relative judged = relativeBesideFrom(update, table);
                    if (judged == null) {
                        return null;
                    }
                    relative = judged.column();
                } else if (outside == statement) {
                    if (!SkeletonFirst.ownColumnsDecidable(update, columnsOf(table))) {
                        return null;
                    }
                    relative = SkeletonFirst.ownColumnRead(update);
                } else {
                    ReadOnlySubqueries.Relative judged =
                            ReadOnlySubqueries.relativeWithQueries(update, columnsOf(table));
                    if (judged == null) {
                        return null;
                    }
                    relative = judged.column();
                }
                return update(update, table, relative, tokenMayBeNull);
            }
            DeleteSkeleton delete = DeleteSkeleton.read(statement);
            if (delete != null) {
                if (with != null && with.shadows(delete.target(), delete.qualifier())) {
                    return null;
                }
                List<Token> outside = ReadOnlySubqueries.outside(statement);
                // USING is allowed as the keyword of the list the skeleton read (no subquery stands before it, so
                // its index outside the subqueries is its index in the statement)
                if (outside == null
                        || !SkeletonFirst.plainWords(
                                outside, -1, delete.usingAt() < 0 ? List.of() : List.of(delete.usingAt()))) {
                    return null;
                }
                ProtectedTable table = protectedTable(delete.target(), List.of());
                return table == null || !usingBesideTarget(delete)
                        ? null
                        : delete(delete, table, tokenMayBeNull, with == null ? List.of() : with.queries());
            }
            // WITH ... MERGE is not read here: the parser's path refuses it
            MergeSkeleton merge = with == null ? MergeSkeleton.read(statement) : null;
            if (merge != null) {
                return mergeFirst(merge, tokenMayBeNull);
            }
            return insertFirst(tokenMayBeNull, with);
        } catch (Refusal declined) {
            return null;
        }
    }

    /**
     * A MERGE as the lane plans it: the plan by position ({@link #merge}, {@link MergeByPosition}, which fences every
     * action with {@link MergeFencer}'s builders and refusals), taken only where the relative-update judgement is
     * certainly the parser's path's too. That path reads each UPDATE action's SET values for column references
     * ({@link UpdateFencer#appendGuardedSet}); {@link MergeByPosition} flags any name spelled as an assigned column,
     * which is at least as much. Declined (null): a SET target that is not a plain column (a field, a subscript), a
     * name spelled as an assigned column in a place the parser's path could read either way
     * ({@link SkeletonFirst#ownColumnsDecidable}, the source's rows named by any one-part qualifier), or a clause
     * whose by-position flag is not the one the decidable reading gives. Everything else the parser's path judges
     * of a MERGE the plan by position judges alike (and a refusal declines, {@link #fenceFirst}); what
     * {@link MergeSkeleton} does not read (INSERT DEFAULT VALUES, {@code t *}, a WITH before the MERGE ...) is not
     * planned here.
     */
    private RewritePlan.@Nullable Fenced mergeFirst(MergeSkeleton merge, boolean tokenMayBeNull) throws Refusal {
        ProtectedTable table = protectedTable(merge.target(), List.of());
        if (table == null) {
            return null;
        }
        boolean relative = false;
        for (MergeSkeleton.Clause clause : merge.clauses()) {
            if (clause.action() != MergeSkeleton.Action.UPDATE) {
                continue;
            }
            // THEN UPDATE SET: the clause's SET list is an UPDATE's, its values reading the target's row and the
            // source's
            UpdateSkeleton set = new UpdateSkeleton(
                    merge.target(), merge.qualifier(), clause.end(), true, clause.setColumns(), clause.setValues());
            if (!SkeletonFirst.plainSetTargets(statement, clause.then() + 2, clause.end())
                    || !SkeletonFirst.ownColumnsDecidable(set, SkeletonFirst.OtherRows.ANY_NAMED, columnsOf(table))) {
                return null;
            }
            relative |= SkeletonFirst.ownColumnRead(set) != null;
        }
        RewritePlan.Fenced plan = merge(merge, table, tokenMayBeNull);
        return plan.relativeUpdate() == relative ? plan : null;
    }

    /** A MERGE of {@code table} fenced by position ({@link MergeByPosition}). */
    private RewritePlan.Fenced merge(MergeSkeleton merge, ProtectedTable table, boolean tokenMayBeNull) throws Refusal {
        FenceContext ctx = new FenceContext(targets, relativePolicy, userParameters() + 1, tokenMayBeNull);
        TreeMap<Integer, Fragment> fragments = new TreeMap<>();
        boolean guarded = new MergeByPosition(this, merge, table, ctx).place(fragments);
        return plan(withFragments(fragments, table), table, ctx, guarded);
    }

    /**
     * An INSERT as the lane plans it, or null: its source VALUES rows or a query ({@link SkeletonFirst#plainSource}),
     * also with ON CONFLICT ({@link ConflictClause}); also where the parser could not read an ON CONFLICT DO UPDATE
     * ({@link #fence}), so that both paths fence it alike. After a WITH ({@code with}, else null), only VALUES rows,
     * and declined where a name before the column list names one of its queries.
     */
    private RewritePlan.@Nullable Fenced insertFirst(boolean tokenMayBeNull, @Nullable ReadOnlyWith with)
            throws Refusal {
        InsertSkeleton insert = InsertSkeleton.read(statement, true);
        if (insert == null) {
            return null;
        }
        if (with != null
                && (insert.queryStart() >= 0
                        || !statement.get(insert.sourceStart()).isWord("VALUES")
                        || with.shadowsAny(statement.subList(0, insert.columnListEnd())))) {
            // a query source after a WITH could read its queries where the parser's path reads them otherwise; and
            // the target, its alias or a column named like a query of the WITH
            return null;
        }
        ConflictClause conflict = conflictClause(insert);
        if (conflict == null
                || !SkeletonFirst.plainWordsAround(
                        statement, insert.sourceStart(), insert.sourceEnd(), conflict.words())
                || !SkeletonFirst.plainSource(statement, insert)
                || !SkeletonFirst.plainColumnList(statement, insert.columnListEnd())) {
            return null;
        }
        ProtectedTable table = protectedTable(insert.target(), insert.columns());
        UpdateSkeleton conflictSet = conflict.update();
        if (table == null || conflictSet == null) {
            return table == null ? null : insert(insert, null, table, tokenMayBeNull);
        }
        if (!SkeletonFirst.plainSetTargets(statement, conflict.setAt(), conflictSet.setEnd())
                || !SkeletonFirst.ownColumnsDecidable(conflictSet, SkeletonFirst.OtherRows.EXCLUDED, columnsOf(table))
                || conflictSet.columns().contains(table.column())) {
            return null; // the parser's path judges it (and refuses a SET of the fence column)
        }
        return insert(insert, conflictSet, table, tokenMayBeNull);
    }

    /**
     * The ON CONFLICT clause after the source as the lane reads it ({@link ConflictClause}); without one, a clause
     * of no words; null when there is one the lane does not read.
     */
    private @Nullable ConflictClause conflictClause(InsertSkeleton insert) {
        int at = insert.sourceEnd();
        if (at >= statement.size() || !statement.get(at).isWord("ON")) {
            return NO_CONFLICT_CLAUSE;
        }
        int end = TokenRuns.firstTopLevel(statement, at, (ts, k) -> ts.get(k).isWord("RETURNING"));
        return ConflictClause.read(statement, at, end, insert.target());
    }

    /** The other row in scope of ON CONFLICT DO UPDATE's SET values: the proposed row. */
    private static final ConflictClause NO_CONFLICT_CLAUSE = new ConflictClause(List.of(), -1, null);

    /**
     * The relative update of an UPDATE whose FROM list is plain tables beside the target ({@link PlainFromList}), as
     * the parser's path judges it ({@link ColumnReferences#readsOwnColumn}): a name qualified by a FROM item is that
     * item's column, a bare assigned name or one qualified by the target's own name reads the target's; null when
     * the lane cannot tell (a FROM list it does not read, a SET value with a query, a name it cannot place).
     */
    private ReadOnlySubqueries.@Nullable Relative relativeBesideFrom(UpdateSkeleton update, ProtectedTable table) {
        PlainFromList from = PlainFromList.read(statement, update.setEnd() + 1);
        if (from == null || !from.besideTarget(targets, TableName.fold(update.qualifier()))) {
            return null;
        }
        for (List<Token> value : update.values()) {
            if (ColumnReferences.holdsQuery(value)) {
                return null;
            }
        }
        if (!SkeletonFirst.ownColumnsDecidable(
                update, SkeletonFirst.OtherRows.named(from.qualifiers()), columnsOf(table))) {
            return null;
        }
        return new ReadOnlySubqueries.Relative(SkeletonFirst.ownColumnRead(update));
    }

    /** A DELETE without USING, or one whose USING list names nothing protected beside the target. */
    private boolean usingBesideTarget(DeleteSkeleton delete) {
        PlainFromList using = delete.using();
        return using == null || using.besideTarget(targets, TableName.fold(delete.qualifier()));
    }

    /**
     * Conservatively, any name in the SET values that spells an assigned column, or the row read as a whole
     * ({@link ColumnReferences#readsOwnRow}), read as a relative update.
     */
    static @Nullable String anyAssignedName(UpdateSkeleton update, @Nullable List<String> tableColumns) {
        for (List<Token> value : update.values()) {
            String wholeRow = ColumnReferences.readsOwnRow(value, update.columns(), update.qualifier(), tableColumns);
            if (wholeRow != null) {
                return wholeRow;
            }
            for (Token t : value) {
                if (TokenRuns.isName(t) && update.columns().contains(TableName.fold(t.text()))) {
                    return TableName.fold(t.text());
                }
            }
        }
        return null;
    }

    /** The table's columns as the catalog read them, or null when not read ({@link ColumnReferences#callsOnRow}). */
    @Nullable
    List<String> columnsOf(ProtectedTable table) {
        TableShape shape = targets.shapeOf(table);
        return shape == null ? null : shape.columns();
    }

    private @Nullable ProtectedTable protectedTable(TableName target, List<String> columns) throws Refusal {
        String indirect = targets.indirectReason(target);
        if (indirect != null) {
            throw Refusal.indirectWrite(target, indirect);
        }
        ProtectedTable table = targets.tableFor(target);
        if (table != null && columns.contains(table.column())) {
            throw Refusal.setsFenceColumn(table);
        }
        return table;
    }

    /** @param relative an assigned column the SET values read, or null */
    private RewritePlan.Fenced update(
            UpdateSkeleton update, ProtectedTable table, @Nullable String relative, boolean tokenMayBeNull)
            throws Refusal {
        FenceContext ctx = new FenceContext(targets, relativePolicy, userParameters() + 1, tokenMayBeNull);
        TreeMap<Integer, Fragment> fragments = new TreeMap<>();
        guardedSet(update, update.hasFrom() ? update.qualifier() : null, table, relative, ctx, fragments);
        return plan(withFragments(fragments, table), table, ctx, true);
    }

    /**
     * What {@link UpdateFencer#appendGuardedSet} does to an UPDATE's or ON CONFLICT DO UPDATE's SET list: notes a
     * relative update ({@code relative}, an assigned column the values read, or null), requires the token unless it
     * may be NULL, and places fenced's guarded SET item after the last item; {@code guardQualifier} names the row
     * in the guard (null: the bare column).
     */
    private static void guardedSet(
            UpdateSkeleton set,
            @Nullable String guardQualifier,
            ProtectedTable table,
            @Nullable String relative,
            FenceContext ctx,
            Map<Integer, Fragment> fragments)
            throws Refusal {
        if (relative != null) {
            ctx.relativeUpdateFound(table, relative);
        }
        boolean nullable = ctx.tokenMayBeNull || table.mode() == FencingMode.OBSERVE;
        ctx.tokenRequired |= !nullable;
        fragments.put(
                set.setEnd(),
                Fragment.shared(setItem(new SetItem(
                        guardQualifier, table.column(), table.displayName(), ctx.tokenIndex, table.mode(), nullable))));
    }

    /** What an UPDATE's guarded SET item depends on: the same for every statement of a table and token place. */
    record SetItem(
            @Nullable String qualifier,
            String column,
            String tableLabel,
            int tokenIndex,
            FencingMode mode,
            boolean tokenMayBeNull) {}

    /**
     * The SET items printed so far: built as nodes and printed ({@link Guards#setValue}), a guard cost a new text
     * a fifth of its allocation. Bounded: emptied when full (a few items per table in practice).
     */
    private static final ConcurrentHashMap<SetItem, String> SET_ITEMS = new ConcurrentHashMap<>();

    private static final int SET_ITEMS_HELD = 256;

    /** Fragments' tokens (compared by kind and text only, so shared), bounded as {@link #SET_ITEMS} is. */
    private static final ConcurrentHashMap<String, List<Token>> FRAGMENT_TOKENS = new ConcurrentHashMap<>();

    static List<Token> fragmentTokens(String fragment) {
        List<Token> tokens = FRAGMENT_TOKENS.get(fragment);
        if (tokens == null) {
            tokens = List.copyOf(SqlLexer.tokenize(fragment));
            if (FRAGMENT_TOKENS.size() >= SET_ITEMS_HELD) {
                FRAGMENT_TOKENS.clear();
            }
            FRAGMENT_TOKENS.put(fragment, tokens);
        }
        return tokens;
    }

    /** {@code , <column> = <guard>}: fenced's SET item, as JSqlParser prints it after the user's last item. */
    static String setItem(SetItem item) {
        String printed = SET_ITEMS.get(item);
        if (printed == null) {
            printed = ", " + TableName.quote(item.column()) + " = "
                    + Guards.setValue(
                            item.qualifier(),
                            item.column(),
                            item.tableLabel(),
                            item.tokenIndex(),
                            item.mode(),
                            item.tokenMayBeNull());
            if (SET_ITEMS.size() >= SET_ITEMS_HELD) {
                SET_ITEMS.clear();
            }
            SET_ITEMS.put(item, printed);
        }
        return printed;
    }

    /** @param conflictSet ON CONFLICT DO UPDATE's SET list, fenced as the parser's path fences it, or null */
    private RewritePlan.Fenced insert(
            InsertSkeleton insert, @Nullable UpdateSkeleton conflictSet, ProtectedTable table, boolean tokenMayBeNull)
            throws Refusal {
        FenceContext ctx = new FenceContext(targets, relativePolicy, userParameters() + 1, tokenMayBeNull);
        String token = Guards.tokenText(ctx.tokenIndex);
        TreeMap<Integer, Fragment> fragments = new TreeMap<>();
        fragments.put(insert.columnListEnd(), Fragment.shared(", " + TableName.quote(table.column())));
        for (int at : insert.tokenBefore()) {
            fragments.put(at, Fragment.shared(", " + token));
        }
        if (insert.queryStart() >= 0) {
            // after the whitespace before the query, as the parser's path prints it: `) SELECT fenced_src.*, ? FROM (q`
            String wrap = "SELECT " + SOURCE_ALIAS + ".*, " + token + " FROM (";
            fragments.put(insert.queryStart(), Fragment.beforeToken(wrap));
            fragments.put(insert.queryEnd(), Fragment.shared(") AS " + SOURCE_ALIAS));
        }
        if (conflictSet != null) {
            // ON CONFLICT: EXCLUDED has the target's columns, so the guard names the row (InsertFencer)
            guardedSet(
                    conflictSet,
                    conflictSet.qualifier(),
                    table,
                    SkeletonFirst.ownColumnRead(conflictSet),
                    ctx,
                    fragments);
        }
        return plan(withFragments(fragments, table), table, ctx, conflictSet != null);
    }

    /**
     * DELETE: the parser's path's condition ({@link DeleteFencer#guardedWhere}), printed around a placeholder for the
     * WHERE, which stays where the user wrote it and is repeated, as written, inside the check. Observe mode adds
     * nothing, as on the parser's path; the WHERE that is evaluated twice is judged by the same refusals, with the
     * queries of the WITH before it ({@code with}).
     */
    private RewritePlan.Fenced delete(
            DeleteSkeleton delete, ProtectedTable table, boolean tokenMayBeNull, List<WithQuery> with) throws Refusal {
        FenceContext ctx = new FenceContext(targets, relativePolicy, userParameters() + 1, tokenMayBeNull);
        TreeMap<Integer, Fragment> fragments = new TreeMap<>();
        boolean enforce = table.mode() != FencingMode.OBSERVE;
        if (enforce) {
            String where = delete.hasWhere() ? copied(delete.whereStart(), delete.whereEnd()) : null;
            // the copy is lexed once: what the refusals judge is what is repeated, and what the copy check compares
            List<Token> copy = where == null ? List.of() : SqlLexer.tokenize(where);
            if (where != null) {
                DeleteFencer.refuseUnrepeatable(copy, with, table, targets);
            }
            String[] around = deleteCondition(
                    new DeleteCondition(
                            delete.writtenTable(),
                            delete.qualifier(),
                            table.column(),
                            table.displayName(),
                            ctx.tokenIndex,
                            where != null,
                            Tombstones.recordsDeletes(table, ctx)),
                    table,
                    ctx);
            if (where == null) {
                fragments.put(delete.whereEnd(), Fragment.shared(" WHERE " + around[0]));
            } else {
                // (W) AND CASE WHEN (W) THEN <check> ELSE FALSE END [AND <hand-over>]: the first W is the user's own
                fragments.put(delete.whereStart(), Fragment.beforeToken(around[0]));
                if (!copiesWhere(copy, statement.subList(delete.whereStart(), delete.whereEnd()))) {
                    // the check would judge other rows than the DELETE removes (fewer deleted, never unchecked)
                    throw new Refusal(table.displayName(), "the DELETE's WHERE could not be repeated as written");
                }
                fragments.put(delete.whereEnd(), Fragment.repeating(around, where, copy));
            }
        }
        return plan(withFragments(fragments, table), table, ctx, enforce);
    }

    /** The user's tokens {@code from} to {@code to} of the statement as written, the {@code ?}s numbered in place. */
    String copied(int from, int to) {
        int offset = tokens.indexOf(statement.get(0));
        int[] numbered = {0};
        for (int k = 0; k < offset + from; k++) {
            numbered[0] += tokens.get(k).kind() == Token.Kind.PARAMETER ? 1 : 0;
        }
        StringBuilder text = new StringBuilder();
        for (int k = from; k < to; k++) {
            Token t = statement.get(k);
            if (k > from) {
                SqlRewriter.appendGap(text, sql, statement.get(k - 1).end(), t.start());
            }
            SqlRewriter.appendToken(text, t, null, true, numbered);
        }
        return text.toString();
    }

    /** The statement's tokens {@code from} to {@code to}, as the user wrote them. */
    List<Token> statementTokens(int from, int to) {
        return statement.subList(from, to);
    }

    /** The copy of a WHERE lexes as the user's tokens: same kinds, same texts but the {@code ?}s' numbers. */
    static boolean copiesWhere(List<Token> copy, List<Token> written) {
        if (copy.size() != written.size()) {
            return false;
        }
        for (int k = 0; k < copy.size(); k++) {
            Token c = copy.get(k);
            Token w = written.get(k);
            if (c.kind() != w.kind() || (c.kind() != Token.Kind.PARAMETER && !c.sameText(w))) {
                return false;
            }
        }
        return true;
    }

    /** What a DELETE's condition depends on but its WHERE: the same for every statement of a table, name and place. */
    record DeleteCondition(
            String writtenTable,
            String qualifier,
            String column,
            String tableLabel,
            int tokenIndex,
            boolean hasWhere,
            boolean handsOver) {}

    /** Stands for the user's WHERE while the condition is printed; never sent. */
    private static final String WHERE_PLACEHOLDER = "fenced_skeleton_where";

    /** Printed conditions, split around the WHERE: built, they cost more than the rest of a new DELETE's plan. */
    private static final ConcurrentHashMap<DeleteCondition, String[]> DELETE_CONDITIONS = new ConcurrentHashMap<>();

    /**
     * The DELETE's condition as the parser's path prints it: with a WHERE, the three texts before, between and after
     * its two places; without one, the whole condition.
     */
    static String[] deleteCondition(DeleteCondition key, ProtectedTable table, FenceContext ctx) throws Refusal {
        String[] printed = DELETE_CONDITIONS.get(key);
        if (printed == null) {
            String whole = DeleteFencer.guardedWhere(
                            key.hasWhere() ? new Column(WHERE_PLACEHOLDER) : null,
                            key.qualifier(),
                            key.writtenTable(),
                            table,
                            ctx)
                    .toString();
            printed = whole.split(WHERE_PLACEHOLDER, -1);
            if (printed.length != (key.hasWhere() ? 3 : 1)) {
                throw new Refusal(table.displayName(), "the DELETE's condition cannot be placed around its WHERE");
            }
            if (DELETE_CONDITIONS.size() >= SET_ITEMS_HELD) {
                DELETE_CONDITIONS.clear();
            }
            DELETE_CONDITIONS.put(key, printed);
        }
        return printed;
    }

    /**
     * What fenced adds at one place: its text, in pieces sent one after the other, the tokens each piece must lex as,
     * and whether it goes after the whitespace before the user's token (right before it) rather than right after the
     * token before. In pieces so that a condition repeated around fenced's check is not copied into one string (and
     * its tokens into one list) first: a tombstone DELETE's is several times the statement.
     */
    record Fragment(List<String> pieces, List<List<Token>> tokens, boolean beforeToken) {

        /** Text of fenced's own, the same for many statements: its tokens are kept ({@link #fragmentTokens}). */
        static Fragment shared(String text) {
            return new Fragment(List.of(text), List.of(fragmentTokens(text)), false);
        }

        /** As {@link #shared}, sent after the whitespace before the user's token. */
        static Fragment beforeToken(String text) {
            return new Fragment(List.of(text), List.of(fragmentTokens(text)), true);
        }

        /**
         * A condition ({@code copy}, {@code copyTokens}) repeated inside fenced's check: {@code around[1]}, the copy,
         * {@code around[2]} ({@link #deleteCondition}).
         */
        static Fragment repeating(String[] around, String copy, List<Token> copyTokens) {
            return new Fragment(
                    List.of(around[1], copy, around[2]),
                    List.of(fragmentTokens(around[1]), copyTokens, fragmentTokens(around[2])),
                    false);
        }

        /** The text's length. */
        int length() {
            int length = 0;
            for (String piece : pieces) {
                length += piece.length();
            }
            return length;
        }

        /** How many tokens the text lexes as. */
        int tokenCount() {
            int count = 0;
            for (List<Token> piece : tokens) {
                count += piece.size();
            }
            return count;
        }

        void appendTo(StringBuilder text) {
            for (String piece : pieces) {
                text.append(piece);
            }
        }
    }

    private RewritePlan.Fenced plan(Placed printed, ProtectedTable table, FenceContext ctx, boolean guarded)
            throws Refusal {
        return SqlRewriter.assemble(
                new SqlRewriter.Printed(printed.text(), userParameters(), ctx.tokenIndex, guarded),
                printed.tokens(),
                new RewritePlan.Writes(
                        List.of(table.displayName()),
                        table.mode(),
                        ctx.relativeUpdate,
                        false,
                        table.tokenDomain(),
                        ctx.tokenRequired));
    }

    private int userParameters() {
        int n = 0;
        for (Token t : tokens) {
            n += t.kind() == Token.Kind.PARAMETER ? 1 : 0;
        }
        return n;
    }

    /**
     * The user's text with each fragment before the statement token at its index (at the statement's size: after
     * its last token), the {@code ?}s numbered; refused unless it lexes as exactly the user's tokens with the
     * fragments' tokens in their places.
     */
    private Placed withFragments(NavigableMap<Integer, Fragment> fragments, ProtectedTable table) throws Refusal {
        int offset = tokens.indexOf(statement.get(0));
        int added = 0;
        for (Fragment f : fragments.values()) {
            added += f.length();
        }
        // sized once: a tombstone hand-over is several times the statement, and growing copied it over and over
        StringBuilder text = new StringBuilder(sql.length() + added + 16);
        StringBuilder unfenced = new StringBuilder(sql.length());
        int[] numbered = {0};
        int[] numberedAgain = {0};
        int previousEnd = 0;
        // the statement's tokens, without the whitespace before them or a `;` after them, as JSqlParser prints it
        List<Token> kept = tokens.subList(0, offset + statement.size());
        // the places in order, walked beside the tokens rather than looked up (boxed) for each token
        Iterator<Map.Entry<Integer, Fragment>> places = fragments.entrySet().iterator();
        Map.Entry<Integer, Fragment> place = places.hasNext() ? places.next() : null;
        for (int k = 0; k < kept.size(); k++) {
            Token t = kept.get(k);
            int at = k - offset;
            while (place != null && place.getKey() < at) {
                place = places.hasNext() ? places.next() : null;
            }
            Fragment before = place != null && place.getKey() == at && at < statement.size() ? place.getValue() : null;
            if (before != null && !before.beforeToken()) {
                // right after the token before it, as JSqlParser prints an added item (`1, "c" = ...`, `(a, "c")`):
                // a text written as the parser prints it is sent exactly as the parser's path would send it
                before.appendTo(text);
                if (t.start() == previousEnd && !(t.isSymbol(")") || t.isSymbol(",") || t.isSymbol(";"))) {
                    text.append(' ');
                }
            }
            if (k > 0) {
                SqlRewriter.appendGap(text, sql, previousEnd, t.start());
                SqlRewriter.appendGap(unfenced, sql, previousEnd, t.start());
            }
            if (before != null && before.beforeToken()) {
                before.appendTo(text); // after the whitespace: `WHERE (id = 1)`
            }
            SqlRewriter.appendToken(text, t, null, true, numbered);
            SqlRewriter.appendToken(unfenced, t, null, true, numberedAgain);
            previousEnd = t.end();
            Fragment after = k - offset == statement.size() - 1 ? fragments.get(statement.size()) : null;
            if (after != null) {
                after.appendTo(text);
            }
        }
        String printed = text.toString();
        List<Token> printedTokens;
        try {
            printedTokens = SqlLexer.tokenizeStrict(printed);
        } catch (SqlLexer.LexException e) {
            throw new Refusal(table.displayName(), "the fenced text cannot be read (" + e.getMessage() + ")");
        }
        // the unfenced text has the user's tokens one for one; fenced's fragments go where the skeleton placed them
        List<Token> userTokens = SqlLexer.tokenize(unfenced.toString());
        String problem = userTokens.size() == kept.size() ? null : "the statement's tokens cannot be kept as written";
        if (problem == null) {
            problem = sameTokens(userTokens, offset, fragments, printedTokens);
        }
        // SentText.lostUserToken, which the parser's path asks, is not asked here: sameTokens found every user token,
        // in order, at its place, which is more than it checks (the user's tokens a subsequence of the printed ones)
        if (problem == null) {
            problem = SentText.dependsOnConformingStrings(printed, printedTokens);
        }
        if (problem != null) {
            throw new Refusal(table.displayName(), problem);
        }
        return new Placed(printed, printedTokens);
    }

    /** The fenced text and its tokens, lexed as PostgreSQL lexes it. */
    private record Placed(String text, List<Token> tokens) {}

    /**
     * Null when the fenced text ({@code printed}, its tokens) lexes as the user's tokens ({@code user}) with each
     * fragment's tokens right before the user's token at {@code offset} plus its index (at the end for the index
     * after the statement's last token), kind and text; otherwise why not. Walked in place, the user's tokens and the
     * fragments' side by side: the list they make was a twentieth of a tombstone DELETE's allocation.
     */
    static @Nullable String sameTokens(
            List<Token> user, int offset, NavigableMap<Integer, Fragment> fragments, List<Token> printed) {
        int want = user.size();
        for (Fragment f : fragments.values()) {
            want += f.tokenCount();
        }
        if (want != printed.size()) {
            return NOT_AS_PLACED;
        }
        int p = 0;
        Iterator<Map.Entry<Integer, Fragment>> places = fragments.entrySet().iterator();
        Map.Entry<Integer, Fragment> place = places.hasNext() ? places.next() : null;
        for (int u = 0; u <= user.size(); u++) {
            while (place != null && offset + place.getKey() == u) {
                for (List<Token> piece : place.getValue().tokens()) {
                    for (Token t : piece) {
                        if (!same(t, printed.get(p++))) {
                            return NOT_AS_PLACED;
                        }
                    }
                }
                place = places.hasNext() ? places.next() : null;
            }
            if (u < user.size() && !same(user.get(u), printed.get(p++))) {
                return NOT_AS_PLACED;
            }
        }
        // a fragment placed outside the statement (never: the skeletons place them) was not walked
        return place == null ? null : NOT_AS_PLACED;
    }

    private static final String NOT_AS_PLACED = "the fenced text does not lex as the statement with fenced's fragments";

    /** Same kind, same text, compared in place: cutting each token's text was a tenth of a new DELETE's allocation. */
    private static boolean same(Token want, Token printed) {
        return want.kind() == printed.kind() && want.sameText(printed);
    }
}
