package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.log.Logs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.update.Update;
import org.jspecify.annotations.Nullable;

/**
 * Decides, for one SQL text, what fenced sends instead: the whole pipeline from the text pre-filter to
 * the final placeholder map. Never throws for bad SQL: a statement it cannot fence becomes a refused
 * plan naming the table and the construct. Thread-safe; plans are cached by {@link RewriteCache}.
 *
 * <pre>
 * text ─ pre-filter (no protected name in the text?) ─────────────────────────────▶ pass through
 *   │ lexer (PostgreSQL's scan.l rules): statements, keywords, parameters, literals
 *   │ classifier: DDL/utility/reads pass; TRUNCATE, COPY FROM, DO ... refused
 *   │ one plain UPDATE ... SET ... [WHERE], INSERT ... (columns) VALUES, DELETE FROM ... [WHERE] or MERGE of a
 *   │   protected table: fenced by position (SkeletonFirst, SkeletonFencer), checked token for token, no
 *   │   parse ──────────────────────────────────────────────────────────────────────────────────▶ RewritePlan
 *   │ parser view: strings as placeholders, comments as spaces, ?s numbered (?1, ?2 ...), ONLY and t * lifted,
 *   │   CURRENT OF and transaction control as placeholders;
 *   │   JSqlParser's own token manager must cut it where PostgreSQL does; parse under a deadline
 *   │ collect every INSERT/UPDATE/DELETE/MERGE, cross-checked with the keyword count
 *   │ fidelity check: the printout, literals put back, is the original's tokens in order
 *   │ fence each protected target (one visitor per statement kind)
 *   │ print; JSqlParser and PostgreSQL must lex it alike; literals back byte for byte; every user token
 *   │   kept in order; same tokens with standard_conforming_strings off; re-parse, every guard in place
 *   │ map ?N back to ?: at least one token parameter, pgjdbc binds exactly where PostgreSQL sees them
 *   ▼ RewritePlan
 * </pre>
 */
public final class SqlRewriter {

    private static final System.Logger LOG = Logs.get("dev.fenced.sql");

    private final FencingTargets targets;
    private final RelativeUpdatePolicy relativePolicy;
    private final Duration parseTimeout;
    /** Plain UPDATEs, INSERTs, DELETEs and MERGEs are fenced by position before the parser ({@link SkeletonFirst}). */
    private final boolean skeletonFirst;
    /** How many plans {@link SkeletonFirst} made: the oracle test counts them. */
    private final java.util.concurrent.atomic.LongAdder skeletonFirstPlans =
            new java.util.concurrent.atomic.LongAdder();

    public SqlRewriter(FencingTargets targets, RelativeUpdatePolicy relativePolicy, Duration parseTimeout) {
        this(targets, relativePolicy, parseTimeout, true);
    }

    /**
     * @param skeletonFirst false: every statement through the parser's path, as before {@link SkeletonFirst} (the
     *                      oracle the fast path is compared with)
     */
    SqlRewriter(
            FencingTargets targets, RelativeUpdatePolicy relativePolicy, Duration parseTimeout, boolean skeletonFirst) {
        this.targets = targets;
        this.relativePolicy = relativePolicy;
        this.parseTimeout = parseTimeout;
        this.skeletonFirst = skeletonFirst;
    }

    /** How many plans {@link #byPosition} made for what the parser could not read: the oracle test counts them. */
    private final java.util.concurrent.atomic.LongAdder byPositionPlans = new java.util.concurrent.atomic.LongAdder();

    /** The number of plans made by position before the parser was asked. */
    long skeletonFirstPlans() {
        return skeletonFirstPlans.sum();
    }

    /** The number of plans made by position because the parser could not read the statement (or would change it). */
    long byPositionPlans() {
        return byPositionPlans.sum();
    }

    public FencingTargets targets() {
        return targets;
    }

    /**
     * False when the text certainly needs no fencing: it names nothing protected, runs no DO block
     * (which can build any table name at run time), renames no schema of a registered table and names none
     * of fenced's own objects.
     */
    public boolean needsPlanning(String sql) {
        return targets.mayMention(sql)
                || TextFacts.hasDoBlock(sql)
                || TextFacts.renamesProtectedSchema(sql, targets)
                || FencedObjects.mayName(sql);
    }

    /** The plan for {@code sql}; computed, not cached. */
    public RewritePlan plan(String sql) {
        return plan(sql, false);
    }

    /**
     * The plan for {@code sql} run with a NULL token (inside {@code Fencing.unfenced}): the same text as
     * {@link #plan} but for a guard that would otherwise {@link RewritePlan#tokenRequired() require} a token,
     * which keeps the row's fence value instead. Computed, not cached; only asked for such plans.
     */
    public RewritePlan planForNullToken(String sql) {
        return plan(sql, true);
    }

    /**
     * The plan for a {@link LiteralShape#probe() probe}: as {@link #plan}, but a relative update in it is not
     * warned of (the text is fenced's, not the application's).
     */
    RewritePlan planProbe(String probe) {
        return plan(probe, false, true);
    }

    private RewritePlan plan(String sql, boolean tokenMayBeNull) {
        return plan(sql, tokenMayBeNull, false);
    }

    private RewritePlan plan(String sql, boolean tokenMayBeNull, boolean probe) {
        if (!needsPlanning(sql)) {
            return RewritePlan.Passthrough.PASSTHROUGH;
        }
        try {
            return planMentioning(sql, tokenMayBeNull, probe);
        } catch (Refusal r) {
            // the strictest mode of every protected name the text reaches decides, not the one refused first
            TextFacts.Mention mention = TextFacts.mention(sql, targets);
            FencingMode mode = TextFacts.stricter(mention == null ? null : mention.mode(), modeOf(r.table));
            if (TextFacts.hasDoBlock(sql)) {
                // a DO block can write any table, named or not
                for (ProtectedTable t : targets.tables()) {
                    mode = TextFacts.stricter(mode, t.mode());
                }
            }
            return new RewritePlan.Refused(
                    r.table, r.construct, mode, !r.transientCause, StatementClassifier.holdsSchemaDdl(sql));
        } catch (StackOverflowError e) {
            // JSqlParser prints (and visits) expression trees recursively: `0 + 1 + 1 ...` 20,000 terms long parsed
            // under the deadline but overflowed the caller's stack when printed, throwing an Error out of
            // executeUpdate. How deep a thread can go depends on its stack size, so this is not cached.
            String table = guessTable(sql);
            return new RewritePlan.Refused(
                    table, "a statement nested too deeply to rewrite", modeOf(table), false, false);
        }
    }

    private RewritePlan planMentioning(String text, boolean tokenMayBeNull, boolean probe) throws Refusal {
        String sql = jdbcEscapesTranslated(text);
        List<Token> tokens = strictTokens(sql);
        String spelledOut = TableCommand.expanded(sql, tokens);
        if (!spelledOut.equals(sql)) {
            sql = spelledOut;
            tokens = strictTokens(sql);
        }
        List<StatementClassifier.Piece> pieces = StatementClassifier.split(tokens);
        boolean parse = false;
        boolean schemaChange = false;
        @Nullable String mentioned = null;
        @Nullable String ddl = null;
        for (StatementClassifier.Piece piece : pieces) {
            StatementClassifier.classify(piece, sql, targets);
            if (piece.verdict == StatementClassifier.Verdict.REFUSE) {
                throw new Refusal(
                        display(piece.mentioned),
                        java.util.Objects.requireNonNull(piece.construct, "a refused piece names its construct"));
            }
            if (ddl != null && TextFacts.mayWrite(piece)) {
                // the whole text is planned before any of it runs: a write after DDL that makes a new view,
                // child or partition of a protected table would be planned without knowing it
                throw new Refusal(
                        ddl,
                        "a text that changes the schema around a protected table and then writes;"
                                + " send the DDL on its own, then the write");
            }
            if (piece.schemaChange) {
                ddl = display(piece.mentioned);
            }
            schemaChange |= piece.schemaChange;
            if (piece.verdict == StatementClassifier.Verdict.PARSE) {
                parse = true;
                mentioned = mentioned == null ? display(piece.mentioned) : mentioned;
            }
        }
        if (!parse) {
            return schemaChange ? RewritePlan.Passthrough.SCHEMA_CHANGE : RewritePlan.Passthrough.PASSTHROUGH;
        }
        // a text that needs parsing has a piece that set it (display never answers null)
        String named = java.util.Objects.requireNonNull(mentioned);
        rejectLexicalHazards(tokens, named);

        List<Integer> dmlKeywords = StatementClassifier.dmlKeywordIndexes(tokens);
        if (skeletonFirst) {
            // everything above (escapes, TABLE, the classifier's refusals, lexical hazards) has been checked
            RewritePlan.Fenced quick = null;
            if (loneWrite(tokens, pieces, dmlKeywords)) {
                quick = new SkeletonFencer(targets, relativePolicy, sql, tokens, pieces.get(0).tokens)
                        .fenceFirst(tokenMayBeNull);
            } else {
                ReadOnlyWith with = writeAfterWith(tokens, pieces, dmlKeywords);
                if (with != null) {
                    quick = new SkeletonFencer(targets, relativePolicy, sql, tokens, with.statement())
                            .fenceFirst(tokenMayBeNull, with);
                }
            }
            if (quick != null) {
                skeletonFirstPlans.increment();
                return relativeUpdateNoted(quick, sql, probe);
            }
        }
        Literals literals = new Literals();
        Prepared prepared = parserView(sql, tokens, dmlKeywords, literals, true);
        int userParams = prepared.parameters;
        int tokenIndex = userParams + 1;

        String misread = ParserLexing.disagreement(prepared.text, SqlLexer.tokenize(prepared.text));
        if (misread != null) {
            return byPosition(new Refusal(named, misread), sql, tokens, pieces, dmlKeywords, tokenMayBeNull, probe);
        }
        Statements statements;
        try {
            statements = BoundedParser.parseStatements(prepared.text, parseTimeout);
        } catch (BoundedParser.ParseFailure e) {
            if (e.timedOut) {
                // a refusal for want of time is transient (not cached): the skeleton is no answer to load
                throw new Refusal(named, "SQL the parser cannot read (" + e.getMessage() + ")", true);
            }
            return byPosition(
                    new Refusal(named, "SQL the parser cannot read (" + e.getMessage() + ")", e.timedOut),
                    sql,
                    tokens,
                    pieces,
                    dmlKeywords,
                    tokenMayBeNull,
                    probe);
        }
        List<Statement> list = statements;
        if (list.size() != pieces.size()) {
            throw new Refusal(named, "the parser read " + list.size() + " statements where there are " + pieces.size());
        }
        List<Statement> dml = new ArrayList<>();
        // each write's WITH in scope, read before anything is fenced: its own, and the top-level one it is a query of
        List<List<WithQuery>> withInScope = new ArrayList<>();
        for (Statement s : list) {
            List<WithQuery> top = withQueries(s);
            for (Statement node : DmlCollector.collect(s)) {
                dml.add(node);
                List<WithQuery> scope = new ArrayList<>(node == s ? List.of() : withQueries(node));
                scope.addAll(top);
                withInScope.add(scope);
            }
        }
        if (dml.size() != dmlKeywords.size()) {
            throw new Refusal(named, "a data-modifying statement in a position fenced cannot rewrite");
        }
        for (int k = 0; k < dml.size(); k++) {
            String keyword = tokens.get(dmlKeywords.get(k)).text().toUpperCase(Locale.ROOT);
            if (!DmlCollector.DmlKind.of(dml.get(k)).name().equals(keyword)) {
                throw new Refusal(named, "a data-modifying statement in a position fenced cannot rewrite");
            }
            if ((prepared.only[k] || prepared.descendants[k])
                    && DmlCollector.target(dml.get(k)).getNameParts().size() > 2) {
                throw new Refusal(named, "ONLY or * with a three-part name (database.schema.table)");
            }
            if (prepared.only[k]) {
                DmlCollector.markOnly(dml.get(k));
            }
            if (prepared.descendants[k]) {
                StarTable.mark(dml.get(k));
            }
        }
        String roundTrip = literals.restore(printBack(list, prepared, named));
        if (roundTrip == null) {
            throw new Refusal(named, "the statement's literals cannot be put back as written");
        }
        List<Token> roundTripTokens = SqlLexer.tokenize(roundTrip);
        String difference = FidelityCheck.difference(tokens, roundTripTokens);
        if (difference != null) {
            return byPosition(new Refusal(named, difference), sql, tokens, pieces, dmlKeywords, tokenMayBeNull, probe);
        }

        FenceContext ctx = new FenceContext(targets, relativePolicy, tokenIndex, tokenMayBeNull);
        List<String> fencedTables = new ArrayList<>();
        @Nullable ProtectedTable domainSetter = null; // the first table fenced: its token domain is the statement's
        boolean enforce = false;
        // an observed DELETE, or a MERGE whose every action is DO NOTHING, adds nothing: no token parameter to find
        boolean guarded = false;
        for (int k = 0; k < dml.size(); k++) {
            Statement node = dml.get(k);
            TableName target = FenceContext.nameOf(DmlCollector.target(node));
            String indirect = targets.indirectReason(target);
            if (indirect != null) {
                throw Refusal.indirectWrite(target, indirect);
            }
            ProtectedTable table = targets.tableFor(target);
            if (table == null) {
                continue;
            }
            if (domainSetter == null) {
                domainSetter = table;
            } else if (!domainSetter.tokenDomain().equals(table.tokenDomain())) {
                throw new Refusal(
                        table.displayName(),
                        "a statement that writes " + domainSetter.displayName()
                                + " (token domain " + domainSetter.tokenDomain() + ") and " + table.displayName()
                                + " (token domain " + table.tokenDomain()
                                + "): it carries one token, and tokens of two domains"
                                + " are unrelated numbers; write them in separate statements, each under its own token");
            }
            if (node instanceof Update u) {
                UpdateFencer.fence(u, table, ctx);
                guarded = true;
            } else if (node instanceof Insert i) {
                InsertFencer.fence(i, table, ctx);
                guarded = true;
            } else if (node instanceof Merge m) {
                guarded |= MergeFencer.fence(m, table, ctx, withInScope.get(k));
            } else {
                DeleteFencer.fence((Delete) node, table, ctx, withInScope.get(k));
                guarded |= table.mode() == FencingMode.ENFORCE;
            }
            fencedTables.add(table.displayName());
            enforce |= table.mode() == FencingMode.ENFORCE;
        }
        if (fencedTables.isEmpty()) {
            return schemaChange ? RewritePlan.Passthrough.SCHEMA_CHANGE : RewritePlan.Passthrough.PASSTHROUGH;
        }
        String printed;
        try {
            printed = verify(printBack(list, prepared, named), literals, roundTripTokens, fencedTables);
        } catch (PrintoutUnparsed e) {
            // JSqlParser read the statement but cannot read its own fenced printout (it prints VALUES ... UNION
            // inside the query it adds, say): the statement is fenced by position if the skeleton reads it, with
            // the same checks as any text it fences; else the refusal stands
            return byPosition(e.refusal, sql, tokens, pieces, dmlKeywords, tokenMayBeNull, probe);
        }
        if (ctx.relativeUpdate && !probe) {
            relativeUpdatePlanned(fencedTables.get(0), sql);
        }
        return assemble(
                new Printed(printed, userParams, tokenIndex, guarded),
                new RewritePlan.Writes(
                        fencedTables,
                        enforce ? FencingMode.ENFORCE : FencingMode.OBSERVE,
                        ctx.relativeUpdate,
                        schemaChange,
                        java.util.Objects.requireNonNull(domainSetter, "a fenced statement has a first table")
                                .tokenDomain(),
                        ctx.tokenRequired));
    }

    /**
     * The queries of {@code statement}'s own WITH as {@link WithQuery} reads them, from JSqlParser's printout of each
     * (whose tokens the fidelity check compared with the user's); a query it does not read is judged as the worst
     * case, a {@code NOT MATERIALIZED} query of all its tokens.
     */
    private static List<WithQuery> withQueries(Statement statement) {
        List<net.sf.jsqlparser.statement.select.WithItem<?>> items = DmlCollector.withItems(statement);
        if (items == null) {
            return List.of();
        }
        List<WithQuery> out = new ArrayList<>(items.size());
        for (net.sf.jsqlparser.statement.select.WithItem<?> item : items) {
            List<Token> printed = SqlLexer.tokenize(item.toString());
            WithQuery read = WithQuery.read(printed);
            if (read == null && !printed.isEmpty() && printed.get(0).isWord("RECURSIVE")) {
                read = WithQuery.read(printed.subList(1, printed.size())); // the first query prints the WITH's option
            }
            out.add(
                    read != null
                            ? read
                            : new WithQuery(
                                    WithQuery.lower(String.valueOf(item.getAliasName())),
                                    WithQuery.Materialized.NEVER,
                                    printed));
        }
        return out;
    }

    /** Warns, when the policy says so, of a relative update planned for a new text (in full or from its shape). */
    void relativeUpdatePlanned(String table, String sql) {
        if (relativePolicy == RelativeUpdatePolicy.WARN) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: relative update on protected table {0}: a stale holder''s"
                            + " relative update can land before the newer holder''s first write; write whole new values: {1}",
                    table,
                    sql);
        }
    }

    /**
     * The text as pgjdbc sends it: JDBC escapes ({@code {fn abs(x)}}, {@code {d '...'}} ...) translated by pgjdbc's
     * own {@code Parser.replaceProcessing}, which the driver runs on every text with escape processing on (the
     * default); fenced fences what PostgreSQL will run. A translation that depends on standard_conforming_strings
     * (a backslash in a string before an escape) is refused, as is an escape pgjdbc rejects.
     */
    private String jdbcEscapesTranslated(String sql) throws Refusal {
        if (sql.indexOf('{') < 0) {
            return sql;
        }
        try {
            String on = org.postgresql.core.Parser.replaceProcessing(sql, true, true);
            if (!on.equals(org.postgresql.core.Parser.replaceProcessing(sql, true, false))) {
                throw new Refusal(
                        guessTable(sql),
                        "JDBC escape syntax ({...}) that pgjdbc translates differently when"
                                + " standard_conforming_strings is off");
            }
            return on;
        } catch (java.sql.SQLException e) {
            throw new Refusal(guessTable(sql), "JDBC escape syntax pgjdbc cannot translate (" + e.getMessage() + ")");
        }
    }

    /**
     * Where JSqlParser cannot read a statement as PostgreSQL does (or would print it changed), a lone UPDATE is
     * fenced by position instead: {@link UpdateSkeleton} finds the end of its SET list from PostgreSQL's tokens and
     * fenced's SET item goes there, every user token kept as written. The result is checked as any fenced text is
     * (lexed back to the user's tokens plus the fragment, the same with standard_conforming_strings off, pgjdbc's
     * parameters where PostgreSQL sees them). What the skeleton cannot read keeps the parser's refusal.
     */
    private List<Token> strictTokens(String sql) throws Refusal {
        try {
            return SqlLexer.tokenizeStrict(sql);
        } catch (SqlLexer.LexException e) {
            throw new Refusal(guessTable(sql), "SQL that cannot be read: " + e.getMessage());
        }
    }

    /**
     * What the parser could not read (or would change), read by position instead ({@link SkeletonFencer}) when
     * it is one UPDATE, INSERT or DELETE of a protected table, or one after a WITH of read-only queries that
     * {@link SkeletonFencer#fenceFirst(boolean, ReadOnlyWith)} plans; otherwise the parser's refusal stands.
     */
    private RewritePlan byPosition(
            Refusal misread,
            String sql,
            List<Token> tokens,
            List<StatementClassifier.Piece> pieces,
            List<Integer> dmlKeywords,
            boolean tokenMayBeNull,
            boolean probe)
            throws Refusal {
        RewritePlan.Fenced plan;
        if (loneWrite(tokens, pieces, dmlKeywords)) {
            plan = new SkeletonFencer(targets, relativePolicy, sql, tokens, pieces.get(0).tokens).fence(tokenMayBeNull);
        } else {
            // a write after a WITH of read-only queries: only as the lane plans it first, so that both paths agree
            ReadOnlyWith with = writeAfterWith(tokens, pieces, dmlKeywords);
            if (with == null) {
                throw misread;
            }
            plan = new SkeletonFencer(targets, relativePolicy, sql, tokens, with.statement())
                    .fenceFirst(tokenMayBeNull, with);
        }
        if (plan == null) {
            throw misread; // not a protected target, or not read: what the parser could not read stays refused
        }
        byPositionPlans.increment();
        return relativeUpdateNoted(plan, sql, probe);
    }

    /** The text is one statement, and its one data-modifying keyword starts it. */
    private static boolean loneWrite(
            List<Token> tokens, List<StatementClassifier.Piece> pieces, List<Integer> dmlKeywords) {
        return pieces.size() == 1
                && dmlKeywords.size() == 1
                && pieces.get(0).tokens.get(0) == tokens.get(dmlKeywords.get(0));
    }

    /**
     * The text is one statement, a WITH of read-only queries ({@link ReadOnlyWith}) before its one data-modifying
     * keyword; null otherwise.
     */
    private static @Nullable ReadOnlyWith writeAfterWith(
            List<Token> tokens, List<StatementClassifier.Piece> pieces, List<Integer> dmlKeywords) {
        if (pieces.size() != 1 || dmlKeywords.size() != 1) {
            return null;
        }
        List<Token> piece = pieces.get(0).tokens;
        if (!piece.get(0).isWord("WITH")) {
            return null;
        }
        int write = piece.indexOf(tokens.get(dmlKeywords.get(0)));
        return write < 0 ? null : ReadOnlyWith.read(piece, write);
    }

    /** {@code plan}, a relative update in it warned of as {@link #relativeUpdatePlanned} says (not for a probe). */
    private RewritePlan.Fenced relativeUpdateNoted(RewritePlan.Fenced plan, String sql, boolean probe) {
        if (plan.relativeUpdate() && !probe) {
            relativeUpdatePlanned(plan.tables().get(0), sql);
        }
        return plan;
    }

    /**
     * The text handed to the parser: the user's tokens as PostgreSQL lexes them, with the original whitespace
     * between them where it is only whitespace (a comment becomes a space), each string constant replaced by a
     * placeholder ({@link Literals}; with {@code literals} null, strings stay as they are), the {@code ?}s
     * numbered ({@code ?1}, {@code ?2}, ...) so they survive printing in any order (with {@code number} false the
     * text's {@code ?N}s are kept: fenced's own printout), and what JSqlParser cannot read put aside: {@code ONLY}
     * and the inheritance star {@code t *} lifted off the targets, {@code WHERE CURRENT OF <cursor>}, MERGE's
     * {@code THEN DO NOTHING} and {@code THEN INSERT DEFAULT VALUES} and a join as its USING source
     * ({@link MergePlaceholders}) and whole
     * transaction-control statements (BEGIN, COMMIT, SAVEPOINT ...) replaced by placeholders that are printed
     * back as written ({@link #printBack}). The same view serves the first parse and the re-parse of the fenced
     * text, so both read the statement alike.
     */
    private static Prepared parserView(
            String sql, List<Token> tokens, List<Integer> dmlKeywords, @Nullable Literals literals, boolean number) {
        boolean[] only = new boolean[dmlKeywords.size()];
        boolean[] descendants = new boolean[dmlKeywords.size()];
        Set<Integer> skip = liftedPositions(tokens, dmlKeywords, only, descendants);
        StringBuilder text = new StringBuilder(sql.length() + 16);
        List<String> cursors = new ArrayList<>();
        List<String> verbatim = new ArrayList<>();
        int[] parameters = {0};
        int previousEnd = 0;
        int mergeActions = 0;
        java.util.Map<Integer, String> mergeJoins = MergePlaceholders.joinSources(tokens);
        boolean pieceStart = true;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            appendGap(text, sql, previousEnd, t.start());
            String added = mergeJoins.get(i);
            if (added != null) {
                text.append(added); // parentheses around a MERGE's USING join, for JSqlParser only
            }
            if (t.isSymbol(";")) {
                text.append(';');
                previousEnd = t.end();
                pieceStart = true;
                continue;
            }
            if (pieceStart) {
                pieceStart = false;
                int end = TransactionControl.endOfPiece(tokens, i);
                if (end >= 0) {
                    // BEGIN, COMMIT, SAVEPOINT ...: JSqlParser does not read them all; a placeholder it reads
                    // stands in, and the statement is printed back exactly as this view has it
                    StringBuilder piece = new StringBuilder();
                    int pieceEnd = t.start();
                    for (int j = i; j <= end; j++) {
                        appendGap(piece, sql, pieceEnd, tokens.get(j).start());
                        appendToken(piece, tokens.get(j), literals, number, parameters);
                        pieceEnd = tokens.get(j).end();
                    }
                    verbatim.add(piece.toString());
                    text.append(TransactionControl.PLACEHOLDER);
                    previousEnd = pieceEnd;
                    i = end;
                    continue;
                }
                verbatim.add(null);
            }
            if (CursorReference.startsAt(tokens, i)) {
                // WHERE CURRENT OF <cursor>: JSqlParser cannot read it; a placeholder stands in until printing
                text.append(CursorReference.placeholder(cursors.size()));
                cursors.add(tokens.get(i + 2).text());
                previousEnd = tokens.get(i + 2).end();
                i += 2;
                continue;
            }
            int action = MergePlaceholders.lengthAt(tokens, i);
            if (action > 0) {
                // THEN DO NOTHING, THEN INSERT DEFAULT VALUES: JSqlParser cannot read them; a placeholder action
                // stands in until printing (or until MergeFencer fences it)
                text.append(MergePlaceholders.placeholder(tokens, i, mergeActions++));
                previousEnd = tokens.get(i + action - 1).end();
                i += action - 1;
                continue;
            }
            previousEnd = t.end();
            if (skip.contains(i)) {
                text.append(' ');
            } else {
                appendToken(text, t, literals, number, parameters);
            }
        }
        return new Prepared(text.toString(), parameters[0], only, descendants, cursors, verbatim);
    }

    /** The source's whitespace between two tokens, or one space where a comment was. */
    static void appendGap(StringBuilder text, String sql, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!SqlLexer.isSpace(sql.charAt(i))) {
                text.append(' ');
                return;
            }
        }
        text.append(sql, from, to); // no substring: a new text's plan appends every gap, twice by position
    }

    static void appendToken(
            StringBuilder text, Token t, @Nullable Literals literals, boolean number, int[] parameters) {
        if (number && t.kind() == Token.Kind.PARAMETER) {
            text.append('?').append(++parameters[0]);
        } else if (literals != null && t.kind() == Token.Kind.STRING) {
            text.append(literals.placeholder(t.text()));
        } else {
            text.append(t.text());
        }
    }

    /** Where {@code ONLY} and the inheritance star stand after each data-modifying keyword. */
    private static Set<Integer> liftedPositions(
            List<Token> tokens, List<Integer> dmlKeywords, boolean[] only, boolean[] descendants) {
        Set<Integer> skip = new LinkedHashSet<>();
        for (int k = 0; k < dmlKeywords.size(); k++) {
            int i = dmlKeywords.get(k);
            // UPDATE ONLY, DELETE FROM ONLY, MERGE INTO ONLY
            int onlyAt = tokens.get(i).isWord("DELETE") || tokens.get(i).isWord("MERGE") ? i + 2 : i + 1;
            if (onlyAt < tokens.size()
                    && tokens.get(onlyAt).isWord("ONLY")
                    && (onlyAt == i + 1
                            || tokens.get(i + 1).isWord("FROM")
                            || tokens.get(i + 1).isWord("INTO"))) {
                only[k] = true;
                skip.add(onlyAt);
            }
            int star = StarTable.starAfterTarget(tokens, i);
            if (star >= 0) {
                descendants[k] = true;
                skip.add(star);
            }
        }
        return skip;
    }

    /** The text handed to the parser, and what preparing it put aside. */
    private record Prepared(
            String text,
            int parameters,
            boolean[] only,
            boolean[] descendants,
            List<String> cursors,
            List<String> verbatim) {}

    /** Constructs JSqlParser misreads or pgjdbc treats specially: refused rather than risked. */
    private static void rejectLexicalHazards(List<Token> tokens, String table) throws Refusal {
        int depth = 0;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.isSymbol("??")) {
                throw new Refusal(table, "the escaped ? operator (??) in a write");
            }
            if (t.kind() == Token.Kind.PARAMETER && t.text().length() > 1) {
                throw new Refusal(table, "numbered JDBC parameters (" + t.text() + ")");
            }
            if (t.kind() == Token.Kind.POSITIONAL_PARAMETER) {
                throw new Refusal(table, "server-side positional parameters (" + t.text() + ")");
            }
            if (t.isUnicodeEscapedName()) {
                throw new Refusal(table, "Unicode-escaped text (" + t.text() + ") cannot be matched safely");
            }
            if ((t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER) && startsLikeOurs(t.text())) {
                throw new Refusal(table, "a name that starts like fenced's own (" + t.text() + ")");
            }
            if (t.isWord("CURRENT")
                    && i + 1 < tokens.size()
                    && tokens.get(i + 1).isWord("OF")
                    && !CursorReference.startsAt(tokens, i)) {
                throw new Refusal(
                        table,
                        "WHERE CURRENT OF a cursor outside an UPDATE cannot be fenced (a DELETE's"
                                + " stale check needs a WHERE of its own); delete by key");
            }
            // Brackets count too: JSqlParser's cost doubles with each nested ARRAY[...] as with each nested
            // subquery (14 levels took over a second, past the deadline soon after), and no parenthesis shows it.
            if ((t.isSymbol("(") || t.isSymbol("[")) && ++depth > BoundedParser.MAX_NESTING) {
                throw new Refusal(table, "nesting deeper than " + BoundedParser.MAX_NESTING + " levels");
            }
            if (t.isSymbol(")") || t.isSymbol("]")) {
                depth--;
            }
        }
    }

    /** Names fenced itself puts into the text (cursor and MERGE action placeholders): the user may not. */
    static boolean startsLikeOurs(String name) {
        if (!isAscii(name)) {
            String plain = name.toLowerCase(Locale.ROOT).replace("\"", "");
            return plain.startsWith(CursorReference.PREFIX) || plain.startsWith(MergePlaceholders.PREFIX);
        }
        // the same question of an ASCII name without its lower-cased copy (asked of every name of a new text)
        return startsLikeAscii(name, CursorReference.PREFIX) || startsLikeAscii(name, MergePlaceholders.PREFIX);
    }

    /** {@code name} (ASCII), lower-cased and its {@code "} removed, starts with {@code prefix} (lower-case ASCII). */
    private static boolean startsLikeAscii(String name, String prefix) {
        int p = 0;
        for (int i = 0; i < name.length() && p < prefix.length(); i++) {
            char c = name.charAt(i);
            if (c == '"') {
                continue;
            }
            char lower = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
            if (lower != prefix.charAt(p++)) {
                return false;
            }
        }
        return p == prefix.length();
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /**
     * The statements as JSqlParser prints them, with what the parser view put aside given back: transaction
     * control as written, cursor references in place.
     */
    private static String printBack(List<Statement> statements, Prepared prepared, String table) throws Refusal {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < statements.size(); k++) {
            if (b.length() > 0) {
                b.append("; ");
            }
            String asWritten = k < prepared.verbatim.size() ? prepared.verbatim.get(k) : null;
            b.append(asWritten != null ? asWritten : statements.get(k).toString());
        }
        return MergePlaceholders.restore(CursorReference.restore(b.toString(), prepared.cursors, table), table);
    }

    /** The parser cannot read its own fenced printout: the caller may fence the statement by position instead. */
    private static final class PrintoutUnparsed extends Exception {
        private static final long serialVersionUID = 1L;

        /** What is refused if the statement cannot be fenced by position either. */
        final transient Refusal refusal;

        PrintoutUnparsed(Refusal refusal) {
            super(refusal.getMessage(), null, false, false);
            this.refusal = refusal;
        }
    }

    /** Re-parses our output and checks every protected write still carries its guard. */
    private String verify(String printed, Literals literals, List<Token> roundTrip, List<String> fencedTables)
            throws Refusal, PrintoutUnparsed {
        List<Token> printedTokens;
        try {
            printedTokens = SqlLexer.tokenizeStrict(printed);
        } catch (SqlLexer.LexException e) {
            throw new Refusal(fencedTables.get(0), "the fenced text cannot be read (" + e.getMessage() + ")");
        }
        String problem = ParserLexing.disagreement(printed, printedTokens);
        if (problem != null) {
            throw new Refusal(fencedTables.get(0), problem);
        }
        String sent = literals.restore(printed);
        if (sent == null) {
            throw new Refusal(fencedTables.get(0), "the statement's literals cannot be put back as written");
        }
        List<Token> sentTokens;
        try {
            sentTokens = SqlLexer.tokenizeStrict(sent); // strictly: what dependsOnConformingStrings compares with
        } catch (SqlLexer.LexException e) {
            throw new Refusal(fencedTables.get(0), "the fenced text cannot be read (" + e.getMessage() + ")");
        }
        problem = SentText.lostUserToken(roundTrip, sentTokens);
        if (problem == null) {
            problem = SentText.dependsOnConformingStrings(sent, sentTokens);
        }
        if (problem != null) {
            throw new Refusal(fencedTables.get(0), problem);
        }
        String text = parserView(
                        printed, printedTokens, StatementClassifier.dmlKeywordIndexes(printedTokens), null, false)
                .text;
        Statements again;
        try {
            again = BoundedParser.parseStatements(text, parseTimeout);
        } catch (BoundedParser.ParseFailure e) {
            Refusal refusal = new Refusal(
                    fencedTables.get(0), "the fenced statement does not parse (" + e.getMessage() + ")", e.timedOut);
            if (e.timedOut) {
                throw refusal; // transient: the skeleton is no answer to load
            }
            throw new PrintoutUnparsed(refusal);
        }
        for (Statement s : again) {
            for (Statement node : DmlCollector.collect(s)) {
                ProtectedTable table = targets.tableFor(FenceContext.nameOf(DmlCollector.target(node)));
                if (table != null && !carriesFence(node, table)) {
                    throw new Refusal(table.displayName(), "the fence could not be added to the statement");
                }
            }
        }
        return sent;
    }

    private static boolean carriesFence(Statement node, ProtectedTable table) {
        String column = table.column();
        if (node instanceof Update u) {
            var sets = u.getUpdateSets();
            var last = sets.get(sets.size() - 1);
            return TableName.fold(last.getColumns().get(0).getColumnName()).equals(column);
        }
        if (node instanceof Insert i) {
            return i.getColumns() != null
                    && i.getColumns().stream()
                            .anyMatch(c -> TableName.fold(c.getColumnName()).equals(column));
        }
        if (node instanceof Merge m) {
            return MergeFencer.carriesFence(m, table);
        }
        Delete d = (Delete) node;
        return table.mode() == FencingMode.OBSERVE
                || (d.getWhere() != null && d.getWhere().toString().contains(Guards.MARKER));
    }

    /**
     * The fenced statement as printed, its parameters still numbered ({@code ?N}).
     *
     * @param userParams the user's parameters: {@code ?1} to {@code ?userParams}
     * @param tokenIndex the number the token parameter has
     * @param guarded    a guard was added, so the token must appear (an observed DELETE adds none)
     */
    record Printed(String text, int userParams, int tokenIndex, boolean guarded) {}

    /** Maps every printed {@code ?N} back to a plain {@code ?} and records where each value goes. */
    static RewritePlan.Fenced assemble(Printed p, RewritePlan.Writes writes) throws Refusal {
        return assemble(p, SqlLexer.tokenize(p.text()), writes); // strictly lexed already, in verify
    }

    /** As {@link #assemble(Printed, RewritePlan.Writes)}, with the printed text's tokens as already lexed. */
    static RewritePlan.Fenced assemble(Printed p, List<Token> printedTokens, RewritePlan.Writes writes) throws Refusal {
        String printed = p.text();
        int userParams = p.userParams();
        List<String> tables = writes.tables();
        List<List<Integer>> userPositions = new ArrayList<>();
        for (int i = 0; i < userParams; i++) {
            userPositions.add(new ArrayList<>());
        }
        List<Integer> tokenPositions = new ArrayList<>();
        // where each token's ? stands in the sent text: the segments are the sent text cut there, not built apart
        int[] tokenAt = new int[4];
        StringBuilder sql = new StringBuilder(printed.length());
        int copied = 0;
        int position = 0;
        for (Token t : printedTokens) {
            if (t.kind() != Token.Kind.PARAMETER) {
                continue;
            }
            sql.append(printed, copied, t.start());
            copied = t.end();
            position++;
            int n = parameterNumber(printed, t.start() + 1, t.end()); // ?N's number, read in place
            if (n == p.tokenIndex()) {
                if (tokenPositions.size() == tokenAt.length) {
                    tokenAt = Arrays.copyOf(tokenAt, tokenAt.length * 2);
                }
                tokenAt[tokenPositions.size()] = sql.length();
                tokenPositions.add(position);
            } else if (n >= 1 && n <= userParams) {
                userPositions.get(n - 1).add(position);
            } else {
                throw new Refusal(tables.get(0), "the fenced statement has an unexpected parameter " + t.text());
            }
            sql.append('?');
        }
        sql.append(printed, copied, printed.length());
        String sent = sql.toString(); // one copy, checked and kept
        String[] segments = new String[tokenPositions.size() + 1];
        int from = 0;
        for (int i = 0; i < tokenPositions.size(); i++) {
            segments[i] = sent.substring(from, tokenAt[i]);
            from = tokenAt[i] + 1; // after the token's ?
        }
        segments[tokenPositions.size()] = sent.substring(from);
        if (p.guarded() && tokenPositions.isEmpty()) {
            throw new Refusal(tables.get(0), "the fenced statement has no token parameter where the guard should be");
        }
        String jdbc = SentText.jdbcDisagreement(sent, position);
        if (jdbc != null) {
            throw new Refusal(tables.get(0), jdbc);
        }
        int[][] map = new int[userParams][];
        for (int i = 0; i < userParams; i++) {
            if (userPositions.get(i).isEmpty()) {
                throw new Refusal(tables.get(0), "parameter " + (i + 1) + " was lost in the rewrite");
            }
            map[i] = ints(userPositions.get(i));
        }
        return new RewritePlan.Fenced(sent, segments, map, ints(tokenPositions), writes);
    }

    /**
     * {@link Integer#parseInt(CharSequence, int, int, int)} of {@code text} {@code from} to {@code to}, in base 10:
     * read here for the ASCII digits fenced numbers its {@code ?N} with (parseInt was a thirtieth of a new MERGE's
     * plan), by parseInt for anything else.
     */
    static int parameterNumber(String text, int from, int to) {
        if (to - from < 1 || to - from > 9) {
            return Integer.parseInt(text, from, to, 10);
        }
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return Integer.parseInt(text, from, to, 10);
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** The list as an array, without a stream (a new text's plan makes one per parameter). */
    private static int[] ints(List<Integer> values) {
        int[] out = new int[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }

    private FencingMode modeOf(String table) {
        for (ProtectedTable t : targets.tables()) {
            if (t.mode() == FencingMode.ENFORCE
                    && (t.displayName().equals(table) || t.name().name().equalsIgnoreCase(table))) {
                return FencingMode.ENFORCE;
            }
        }
        for (ProtectedTable t : targets.tables()) {
            if (t.mode() == FencingMode.OBSERVE
                    && (t.displayName().equals(table) || t.name().name().equalsIgnoreCase(table))) {
                return FencingMode.OBSERVE;
            }
        }
        return targets.tables().stream().anyMatch(t -> t.mode() == FencingMode.ENFORCE)
                ? FencingMode.ENFORCE
                : FencingMode.OBSERVE;
    }

    /** The registered spelling of a mentioned name, when it is one. */
    private String display(@Nullable String mentioned) {
        if (mentioned == null) {
            return guessTable(null);
        }
        for (ProtectedTable t : targets.tables()) {
            if (t.name().name().equals(mentioned) || t.name().name().equals(TableName.fold(mentioned))) {
                return t.displayName();
            }
        }
        return mentioned;
    }

    private String guessTable(@Nullable String sql) {
        for (ProtectedTable t : targets.tables()) {
            if (sql == null
                    || FencingTargets.containsIgnoreCase(sql, t.name().name().toLowerCase(Locale.ROOT))) {
                return t.displayName();
            }
        }
        return "a protected table";
    }
}
