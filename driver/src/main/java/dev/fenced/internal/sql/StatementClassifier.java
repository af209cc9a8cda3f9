package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The lexical stage: splits a text into statements and decides, before any parsing, which of them
 * need the parser. Statements that mention nothing protected, or mention it without any way to write
 * it, pass; utility and DDL statements pass; statements that write a protected table in a form no
 * rewriting can fence (TRUNCATE, COPY ... FROM, DO blocks, EXPLAIN ANALYZE, PREPARE) are refused. MERGE is
 * parsed and fenced action by action ({@link MergeFencer}).
 */
final class StatementClassifier {

    enum Verdict {
        PASS,
        PARSE,
        REFUSE
    }

    /** One statement of the text, with what the lexical stage found. */
    static final class Piece {
        final List<Token> tokens;
        final String firstWord;

        @Nullable
        String mentioned;

        int dmlKeywords;
        Verdict verdict = Verdict.PASS;

        @Nullable
        String construct;
        /** DDL naming something protected: the catalog must be read again once it has run. */
        boolean schemaChange;

        Piece(List<Token> tokens) {
            this.tokens = tokens;
            Token first = tokens.get(0);
            this.firstWord = first.kind() == Token.Kind.WORD ? first.text().toUpperCase(Locale.ROOT) : first.text();
        }
    }

    private static final Set<String> DML = Set.of("INSERT", "UPDATE", "DELETE", "MERGE");
    /** A DML keyword after one of these is part of a clause (FOR UPDATE, DO UPDATE, ON DELETE, ...). */
    private static final Set<String> CLAUSE_BEFORE_DML =
            Set.of("FOR", "KEY", "DO", "ON", "OF", "OR", "BEFORE", "AFTER", "THEN", "INSTEAD");

    /** {@link #DML} and {@link #CLAUSE_BEFORE_DML} as arrays: a set's iterator, per token, was most of their cost. */
    private static final String[] DML_WORDS = DML.toArray(new String[0]);

    private static final String[] CLAUSE_BEFORE_DML_WORDS = CLAUSE_BEFORE_DML.toArray(new String[0]);

    private static final Set<String> PARSED =
            Set.of("SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "MERGE", "VALUES", "TABLE", "(");
    private static final Set<String> SCHEMA_DDL = Set.of("CREATE", "ALTER", "DROP");
    private static final Set<String> UTILITY = Set.of(
            "CREATE",
            "ALTER",
            "DROP",
            "COMMENT",
            "GRANT",
            "REVOKE",
            "ANALYZE",
            "ANALYSE",
            "VACUUM",
            "REINDEX",
            "CLUSTER",
            "LOCK",
            "SET",
            "RESET",
            "SHOW",
            "BEGIN",
            "START",
            "COMMIT",
            "END",
            "ROLLBACK",
            "ABORT",
            "SAVEPOINT",
            "RELEASE",
            "DECLARE",
            "FETCH",
            "MOVE",
            "CLOSE",
            "LISTEN",
            "NOTIFY",
            "UNLISTEN",
            "DISCARD",
            "CHECKPOINT",
            "SECURITY",
            "REFRESH",
            "IMPORT",
            "LOAD",
            "DEALLOCATE",
            "EXECUTE",
            "CALL",
            "PREPARE",
            "REASSIGN");

    private StatementClassifier() {}

    static List<Piece> split(List<Token> tokens) {
        List<Piece> pieces = new ArrayList<>();
        List<Token> current = new ArrayList<>();
        for (Token t : tokens) {
            if (t.isSymbol(";")) {
                if (!current.isEmpty()) {
                    pieces.add(new Piece(current));
                }
                current = new ArrayList<>();
            } else {
                current.add(t);
            }
        }
        if (!current.isEmpty()) {
            pieces.add(new Piece(current));
        }
        return pieces;
    }

    static void classify(Piece piece, String sourceText, FencingTargets targets) {
        piece.mentioned = mentionedName(piece.tokens, targets);
        piece.dmlKeywords = countDmlKeywords(piece.tokens);
        boolean anyWrite = hasWord(piece.tokens, DML) || hasWord(piece.tokens, Set.of("TRUNCATE", "COPY"));
        if (piece.firstWord.equals("DO")) {
            // A DO block's body is a string, and it can build table names at run time (EXECUTE 'UPDATE ' || ...):
            // whether it names a protected table or not, what it writes cannot be seen, so it is never let through.
            refuse(
                    piece,
                    piece.mentioned != null ? piece.mentioned : firstWatchedIn(sourceText, targets),
                    "an anonymous code block (DO) cannot be fenced (what it writes is only known when it runs);"
                            + " run it inside Fencing.unfenced");
            return;
        }
        String inRenamedSchema = TextFacts.schemaRenamed(piece.tokens, targets);
        if (inRenamedSchema != null) {
            refuse(
                    piece,
                    inRenamedSchema,
                    "ALTER SCHEMA ... RENAME moves a protected table out of its registered name;"
                            + " run it inside Fencing.unfenced and register the new name");
            return;
        }
        String fencedObject = FencedObjects.changedBy(piece.tokens, piece.firstWord, targets);
        if (fencedObject != null) {
            refuse(
                    piece,
                    fencedObject,
                    piece.firstWord + " of fenced's own object " + fencedObject
                            + " could switch off its tombstone check or send tokens backwards;"
                            + " run it inside Fencing.unfenced");
            return;
        }
        if (piece.mentioned == null) {
            return;
        }
        // a new view, partition or child of a protected table changes what must be fenced
        piece.schemaChange = SCHEMA_DDL.contains(piece.firstWord);
        if (piece.schemaChange) {
            // The checks below compare names token by token (the fence column, fenced's trigger): a U&"..." name
            // could spell either without matching, so DDL around a protected table must write its names plainly.
            for (Token t : piece.tokens) {
                if (t.isUnicodeEscapedName()) {
                    refuse(
                            piece,
                            piece.mentioned,
                            "DDL with a Unicode-escaped name (" + t.text() + ") around a"
                                    + " protected table cannot be matched safely (it could name the fence column or fenced's"
                                    + " trigger); write the name plainly");
                    return;
                }
            }
        }
        switch (piece.firstWord) {
            case "TRUNCATE" -> refuse(piece, piece.mentioned, "TRUNCATE cannot be fenced; use DELETE");
            case "ALTER" -> classifyAlter(piece, targets);
            case "DROP" -> {
                if (piece.tokens.size() > 1
                        && piece.tokens.get(1).isWord("TRIGGER")
                        && namesTombstoneCheck(piece.tokens)) {
                    refuse(piece, piece.mentioned, SWITCHES_OFF_TOMBSTONES);
                }
            }
            case "COPY" -> classifyCopy(piece);
            case "EXPLAIN" -> {
                // EXPLAIN ANALYZE runs what it explains, a CREATE TABLE ... AS whose CTE writes included
                if (piece.dmlKeywords > 0 && ExplainOptions.executes(piece.tokens)) {
                    // name the table written, not a U&"..." option name that only might have been one
                    String named = mentionedName(piece.tokens, targets, false);
                    refuse(
                            piece,
                            named != null ? named : piece.mentioned,
                            "EXPLAIN ANALYZE would run the write unfenced");
                }
            }
            case "PREPARE" -> {
                if (piece.dmlKeywords > 0) {
                    refuse(
                            piece,
                            piece.mentioned,
                            "PREPARE of a write: its EXECUTE could not carry the token;"
                                    + " use a JDBC PreparedStatement");
                }
            }
            case "CREATE" -> {
                if (isCreateTrigger(piece.tokens) && namesTombstoneCheck(piece.tokens)) {
                    // CREATE OR REPLACE TRIGGER fenced_tombstone_check ... WHEN (false) (or other events) keeps the
                    // name,
                    // function and arguments the catalog read looks for, and never checks an insert
                    refuse(piece, piece.mentioned, SWITCHES_OFF_TOMBSTONES);
                    return;
                }
                if (isCreateRule(piece.tokens)) {
                    // a rule's actions run unfenced whenever its event fires, on whatever table it is attached to
                    refuse(
                            piece,
                            piece.mentioned,
                            "CREATE RULE naming a protected table: its actions would write"
                                    + " around fenced; run it inside Fencing.unfenced");
                    return;
                }
                // CREATE TABLE ... AS WITH d AS (DELETE ...) SELECT ... runs its data-modifying CTE right
                // away (PostgreSQL allows it there, unlike in views, materialized views and cursors), so a
                // DDL-looking statement can write a protected table: never let it pass as utility.
                if (piece.dmlKeywords > 0 && isCreateTable(piece.tokens)) {
                    refuse(
                            piece,
                            piece.mentioned,
                            "CREATE TABLE ... AS with a data-modifying statement cannot be"
                                    + " fenced; run the write on its own, then create the table from its result");
                }
            }
            default -> {
                if (PARSED.contains(piece.firstWord)) {
                    if (piece.dmlKeywords > 0) {
                        piece.verdict = Verdict.PARSE;
                    }
                } else if (!UTILITY.contains(piece.firstWord) && anyWrite) {
                    refuse(piece, piece.mentioned, "unrecognised statement '" + piece.firstWord + "' that may write");
                }
            }
        }
    }

    /**
     * ALTER TABLE that rewrites a protected table's data ({@code ALTER COLUMN ... TYPE ... USING}) or touches
     * its fence column (DROP, RENAME, TYPE, SET DEFAULT ...; only ADD of it is plain DDL) could reset every
     * token, after which a stale write lands: it needs {@code Fencing.unfenced}.
     */
    private static void classifyAlter(StatementClassifier.Piece piece, FencingTargets targets) {
        List<Token> t = piece.tokens;
        String kind = relationCommand(t);
        if (kind == null) {
            return;
        }
        String command = "ALTER " + kind;
        Set<String> fenceColumns = new java.util.HashSet<>();
        for (var table : targets.tables()) {
            fenceColumns.add(table.column());
        }
        for (int i = 2; i < t.size(); i++) {
            Token token = t.get(i);
            String moved = movesRows(t, i);
            if (moved != null) {
                // the rows would live on under a name fenced does not protect: written there unfenced, and put
                // back (INHERIT, ATTACH PARTITION), a stale write would have landed
                refuse(
                        piece,
                        piece.mentioned,
                        command + " ... " + moved
                                + (moved.equals("INHERIT") || moved.equals("ATTACH PARTITION")
                                        ? " brings rows no token checked into a protected table;"
                                                + " run it inside Fencing.unfenced"
                                        : " moves protected rows out from under fencing; run it inside"
                                                + " Fencing.unfenced (and register a new name)"));
                return;
            }
            if (switchesTriggerOff(t, i)) {
                refuse(piece, piece.mentioned, SWITCHES_OFF_TOMBSTONES);
                return;
            }
            if (token.isWord("TYPE")) {
                refuse(
                        piece,
                        piece.mentioned,
                        command + " ... TYPE rewrites every row of a protected table;"
                                + " run it inside Fencing.unfenced");
                return;
            }
            boolean name = token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER;
            if (name && fenceColumns.contains(TableName.fold(token.text())) && !addsColumn(t, i)) {
                refuse(
                        piece,
                        piece.mentioned,
                        command + " that changes the fence column " + token.text()
                                + " could reset the tokens of a protected table; run it inside Fencing.unfenced");
                return;
            }
        }
    }

    /**
     * The command word of an ALTER that PostgreSQL applies to a table whatever the word says, or null: besides
     * ALTER TABLE, ALTER INDEX | VIEW | MATERIALIZED VIEW | SEQUENCE | FOREIGN TABLE rename any relation, rename
     * its columns, or move it to another schema (ALTER INDEX t RENAME TO t_x renames the table t; ALTER VIEW t
     * RENAME COLUMN swaps a table's fence column). The command word is not the relation's kind, so each is
     * classified as ALTER TABLE on the relation it names.
     */
    private static @Nullable String relationCommand(List<Token> t) {
        if (t.size() < 2) {
            return null;
        }
        Token kind = t.get(1);
        if (kind.isWord("TABLE") || kind.isWord("INDEX") || kind.isWord("VIEW") || kind.isWord("SEQUENCE")) {
            return kind.text().toUpperCase(java.util.Locale.ROOT);
        }
        if (t.size() > 2 && kind.isWord("FOREIGN") && t.get(2).isWord("TABLE")) {
            return "FOREIGN TABLE";
        }
        if (t.size() > 2 && kind.isWord("MATERIALIZED") && t.get(2).isWord("VIEW")) {
            return "MATERIALIZED VIEW";
        }
        return null;
    }

    /**
     * The ALTER TABLE action starting at {@code i} that takes rows out of a protected table's name or
     * inheritance tree ({@code RENAME TO}, {@code SET SCHEMA}, {@code NO INHERIT}, {@code DETACH PARTITION}) or
     * brings another table's rows into it ({@code INHERIT}, {@code ATTACH PARTITION}), or null.
     */
    private static @Nullable String movesRows(List<Token> t, int i) {
        if (i + 1 >= t.size()) {
            return null;
        }
        Token a = t.get(i);
        Token b = t.get(i + 1);
        if (a.isWord("RENAME") && b.isWord("TO")) {
            return "RENAME TO";
        }
        if (a.isWord("SET") && b.isWord("SCHEMA")) {
            return "SET SCHEMA";
        }
        if (a.isWord("NO") && b.isWord("INHERIT")) {
            return "NO INHERIT";
        }
        if (a.isWord("DETACH") && b.isWord("PARTITION")) {
            return "DETACH PARTITION";
        }
        // The other way: rows of another table become a protected table's rows, with whatever tokens they hold and
        // keys a newer holder deleted, with no token or tombstone check (no INSERT happens)
        if (a.isWord("ATTACH") && b.isWord("PARTITION")) {
            return "ATTACH PARTITION";
        }
        if (a.isWord("INHERIT") && (i == 0 || !t.get(i - 1).isWord("NO"))) {
            return "INHERIT";
        }
        return null;
    }

    private static final String SWITCHES_OFF_TOMBSTONES = "a statement that drops or disables triggers of a protected"
            + " table would switch off fenced's tombstone check (" + Tombstones.TRIGGER
            + "), after which a stale holder"
            + " could insert again a row a newer holder deleted; run it inside Fencing.unfenced";

    /**
     * {@code DISABLE TRIGGER ALL|USER|fenced_tombstone_check} or {@code ENABLE REPLICA TRIGGER ...} (fires only
     * under {@code session_replication_role = replica}) at {@code i}: the table's own triggers by name stay plain DDL.
     */
    private static boolean switchesTriggerOff(List<Token> t, int i) {
        int name;
        if (t.get(i).isWord("DISABLE") && i + 1 < t.size() && t.get(i + 1).isWord("TRIGGER")) {
            name = i + 2;
        } else if (t.get(i).isWord("ENABLE")
                && i + 2 < t.size()
                && t.get(i + 1).isWord("REPLICA")
                && t.get(i + 2).isWord("TRIGGER")) {
            name = i + 3;
        } else {
            return false;
        }
        if (name >= t.size()) {
            return true;
        }
        Token n = t.get(name);
        return n.isWord("ALL") || n.isWord("USER") || isTombstoneCheck(n);
    }

    private static boolean namesTombstoneCheck(List<Token> tokens) {
        for (Token t : tokens) {
            if (isTombstoneCheck(t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isTombstoneCheck(Token t) {
        return (t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER)
                && TableName.fold(t.text()).equals(Tombstones.TRIGGER);
    }

    /** {@code ADD [COLUMN] [IF NOT EXISTS] <the token at i>}. */
    private static boolean addsColumn(List<Token> t, int i) {
        int j = i - 1;
        while (j > 0
                && (t.get(j).isWord("COLUMN")
                        || t.get(j).isWord("IF")
                        || t.get(j).isWord("NOT")
                        || t.get(j).isWord("EXISTS"))) {
            j--;
        }
        return t.get(j).isWord("ADD");
    }

    /** {@code CREATE [OR REPLACE] [CONSTRAINT] TRIGGER}. */
    private static boolean isCreateTrigger(List<Token> tokens) {
        int i = 1;
        if (tokens.size() > 3 && tokens.get(1).isWord("OR") && tokens.get(2).isWord("REPLACE")) {
            i = 3;
        }
        if (tokens.size() > i && tokens.get(i).isWord("CONSTRAINT")) {
            i++;
        }
        return tokens.size() > i && tokens.get(i).isWord("TRIGGER");
    }

    /** {@code CREATE [OR REPLACE] RULE}. */
    private static boolean isCreateRule(List<Token> tokens) {
        int i = 1;
        if (tokens.size() > 3 && tokens.get(1).isWord("OR") && tokens.get(2).isWord("REPLACE")) {
            i = 3;
        }
        return tokens.size() > i && tokens.get(i).isWord("RULE");
    }

    /** {@code CREATE [GLOBAL | LOCAL] [TEMP | TEMPORARY | UNLOGGED] TABLE}. */
    private static boolean isCreateTable(List<Token> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.isWord("TABLE")) {
                return true;
            }
            if (!(t.isWord("GLOBAL")
                    || t.isWord("LOCAL")
                    || t.isWord("TEMP")
                    || t.isWord("TEMPORARY")
                    || t.isWord("UNLOGGED"))) {
                return false;
            }
        }
        return false;
    }

    private static void classifyCopy(Piece piece) {
        List<Token> t = piece.tokens;
        if (t.size() > 1 && t.get(1).isSymbol("(")) {
            if (piece.dmlKeywords > 0) {
                refuse(piece, piece.mentioned, "COPY of a data-modifying query cannot be fenced");
            }
            return;
        }
        for (Token token : t) {
            if (token.isWord("FROM")) {
                refuse(
                        piece,
                        piece.mentioned,
                        "COPY ... FROM cannot be fenced; load into a staging table and" + " INSERT ... SELECT from it");
                return;
            }
            if (token.isWord("TO")) {
                return;
            }
        }
        refuse(piece, piece.mentioned, "COPY without FROM or TO");
    }

    private static void refuse(Piece piece, @Nullable String table, String construct) {
        piece.verdict = Verdict.REFUSE;
        piece.mentioned = table;
        piece.construct = construct;
    }

    /** The first protected name the tokens reference, or null. {@code U&"..."} counts as a possible one. */
    static @Nullable String mentionedName(List<Token> tokens, FencingTargets targets) {
        return mentionedName(tokens, targets, true);
    }

    private static @Nullable String mentionedName(List<Token> tokens, FencingTargets targets, boolean unicodeEscapes) {
        for (Token t : tokens) {
            if (t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER) {
                if (t.isUnicodeEscapedName() && unicodeEscapes) {
                    return t.text();
                }
                String folded = TableName.fold(t.text());
                if (targets.isWatchedName(folded)) {
                    return t.kind() == Token.Kind.WORD ? folded : t.text();
                }
            }
        }
        return null;
    }

    /** INSERT/UPDATE/DELETE/MERGE keywords that start a statement, not a clause such as FOR UPDATE. */
    static int countDmlKeywords(List<Token> tokens) {
        return dmlKeywordIndexes(tokens).size();
    }

    /**
     * The tokens inside the queries of each statement's leading WITH ({@code WITH [RECURSIVE] name [(columns)] AS
     * [[NOT] MATERIALIZED] (query), ...}) whose query starts with SELECT, VALUES, TABLE or a bracket: a select. In
     * PostgreSQL a data-modifying statement in a WITH can only be the whole query of a member of the statement's
     * top-level WITH (a WITH holding one anywhere else is an error), so no word inside such a query is a write. A
     * member read otherwise (SEARCH or CYCLE after it, anything unexpected) ends the reading: the words after it stay
     * counted.
     */
    private static boolean[] readOnlyWithQueries(List<Token> tokens) {
        boolean[] out = new boolean[tokens.size()];
        if (!TokenRuns.balanced(tokens)) {
            return out; // closing() needs balanced brackets; PostgreSQL rejects the text anyway
        }
        for (int start = 0; start < tokens.size(); start++) {
            if (tokens.get(start).isWord("WITH")
                    && (start == 0 || tokens.get(start - 1).isSymbol(";"))) {
                markQueries(tokens, start + 1, out);
            }
        }
        return out;
    }

    /** Marks in {@code out} the select queries of the WITH members from {@code k} on (see readOnlyWithQueries). */
    private static void markQueries(List<Token> tokens, int from, boolean[] out) {
        int k = from;
        if (k + 1 < tokens.size() && tokens.get(k).isWord("RECURSIVE") && TokenRuns.isName(tokens.get(k + 1))) {
            k++;
        }
        while (k < tokens.size() && TokenRuns.isName(tokens.get(k))) {
            k++;
            if (k < tokens.size() && tokens.get(k).isSymbol("(")) {
                k = TokenRuns.closing(tokens, k) + 1;
            }
            if (k >= tokens.size() || !tokens.get(k).isWord("AS")) {
                return;
            }
            k++;
            if (k + 1 < tokens.size()
                    && tokens.get(k).isWord("NOT")
                    && tokens.get(k + 1).isWord("MATERIALIZED")) {
                k += 2;
            } else if (k < tokens.size() && tokens.get(k).isWord("MATERIALIZED")) {
                k++;
            }
            if (k + 1 >= tokens.size() || !tokens.get(k).isSymbol("(")) {
                return;
            }
            int close = TokenRuns.closing(tokens, k);
            Token first = tokens.get(k + 1);
            if (first.isWord("SELECT") || first.isWord("VALUES") || first.isWord("TABLE") || first.isSymbol("(")) {
                java.util.Arrays.fill(out, k + 1, close, true);
            }
            k = close + 1;
            if (k >= tokens.size() || !tokens.get(k).isSymbol(",")) {
                return;
            }
            k++;
        }
    }

    /** Whether {@code t} is a word spelled INSERT, UPDATE, DELETE or MERGE. */
    static boolean isDmlWord(Token t) {
        return t.kind() == Token.Kind.WORD && upperCaseIn(t, DML, DML_WORDS);
    }

    /**
     * Positions in {@code tokens} of the keywords {@link #countDmlKeywords} counts. Not counted: a word inside a query
     * of a statement's leading WITH whose body is a SELECT ({@link #readOnlyWithQueries}), which PostgreSQL reads as
     * a column label or a name ({@code SELECT 1 AS update}, {@code SELECT x insert FROM s}); but one right after an
     * opening bracket, where a statement could start, is counted (a data-modifying query of a nested WITH, which
     * PostgreSQL rejects, stays refused as before).
     */
    static List<Integer> dmlKeywordIndexes(List<Token> tokens) {
        List<Integer> out = new ArrayList<>();
        boolean[] inReadOnlyQuery = null;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() != Token.Kind.WORD || !upperCaseIn(t, DML, DML_WORDS)) {
                continue;
            }
            if (inReadOnlyQuery == null) {
                inReadOnlyQuery = readOnlyWithQueries(tokens);
            }
            if (inReadOnlyQuery[i] && !tokens.get(i - 1).isSymbol("(")) {
                continue; // after a bracket it could start a statement (a nested WITH's, an error): counted
            }
            Token prev = i > 0 ? tokens.get(i - 1) : null;
            if (prev != null
                    && (prev.isSymbol(".")
                            || prev.isSymbol(",")
                            || (prev.kind() == Token.Kind.WORD
                                    && upperCaseIn(prev, CLAUSE_BEFORE_DML, CLAUSE_BEFORE_DML_WORDS)))) {
                continue;
            }
            if (i + 1 < tokens.size() && tokens.get(i + 1).isSymbol(".")) {
                continue;
            }
            out.add(i);
        }
        return out;
    }

    /**
     * Whether the word {@code t}, upper-cased as {@code toUpperCase(Locale.ROOT)} does, is one of {@code words}
     * ({@code listed}: the same words):
     * compared in place for an ASCII word (the usual case; there the two agree), upper-cased for any other, whose
     * full case mapping may change its length.
     */
    private static boolean upperCaseIn(Token t, Set<String> words, String[] listed) {
        if (!t.isAscii()) {
            return words.contains(t.text().toUpperCase(Locale.ROOT));
        }
        for (String w : listed) {
            if (t.isWord(w)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a statement of {@code sql} is DDL that may change what is protected (CREATE, ALTER, DROP). */
    static boolean holdsSchemaDdl(String sql) {
        try {
            for (Piece piece : split(SqlLexer.tokenize(sql))) {
                if (SCHEMA_DDL.contains(piece.firstWord)) {
                    return true;
                }
            }
            return false;
        } catch (RuntimeException unreadable) {
            return true; // cannot tell: read the catalog again after it, which only costs a read
        }
    }

    static boolean hasWord(List<Token> tokens, Set<String> words) {
        for (Token t : tokens) {
            if (t.kind() == Token.Kind.WORD && words.contains(t.text().toUpperCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    private static String firstWatchedIn(String text, FencingTargets targets) {
        for (var t : targets.tables()) {
            if (FencingTargets.containsIgnoreCase(text, t.name().name().toLowerCase(Locale.ROOT))) {
                return t.displayName();
            }
        }
        return "a protected table";
    }
}
