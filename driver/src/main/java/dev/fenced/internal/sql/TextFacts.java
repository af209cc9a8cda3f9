package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the driver needs to know about a text outside the rewriter, read with the same lexer: the names
 * an SQL {@code EXECUTE} runs, the relations a statement writes, whether a DO block is in it. Each check
 * starts with a cheap substring test so texts that cannot match are not lexed.
 */
public final class TextFacts {

    /** Texts without the word EXECUTE: asked on every execute of a pass-through statement. */
    private static final CleanTexts NO_EXECUTE = new CleanTexts();

    private static final Set<String> WRITE_VERBS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "COPY");

    private TextFacts() {}

    /** Statements that write, or may run writes (EXECUTE of a prepared one, CALL, DO). */
    private static final Set<String> WRITING_STATEMENTS = Set.of("TRUNCATE", "COPY", "DO", "EXECUTE", "CALL", "MERGE");

    /** True when a statement of the text writes or may write (see {@link #mayWrite(StatementClassifier.Piece)}). */
    public static boolean mayWrite(String sql) {
        for (StatementClassifier.Piece piece : StatementClassifier.split(SqlLexer.tokenize(sql))) {
            piece.dmlKeywords = StatementClassifier.countDmlKeywords(piece.tokens);
            if (mayWrite(piece)) {
                return true;
            }
        }
        return false;
    }

    static boolean mayWrite(StatementClassifier.Piece piece) {
        return piece.dmlKeywords > 0 || WRITING_STATEMENTS.contains(piece.firstWord);
    }

    /**
     * The prepared-statement names the text's SQL-level {@code EXECUTE} runs (folded): {@code EXECUTE p},
     * also inside {@code EXPLAIN ANALYZE EXECUTE p} or {@code CREATE TABLE x AS EXECUTE p}. Any word EXECUTE
     * followed by a name counts ({@code GRANT EXECUTE ON ...} gives "on", which names no prepared statement).
     */
    public static List<String> executedNames(String sql) {
        if (NO_EXECUTE.contains(sql)) {
            return List.of();
        }
        if (!FencingTargets.containsIgnoreCase(sql, "execute")) {
            NO_EXECUTE.add(sql);
            return List.of();
        }
        List<String> out = new ArrayList<>();
        List<Token> tokens = SqlLexer.tokenize(sql);
        for (int i = 0; i + 1 < tokens.size(); i++) {
            Token name = tokens.get(i + 1);
            if (tokens.get(i).isWord("EXECUTE")
                    && (name.kind() == Token.Kind.WORD || name.kind() == Token.Kind.QUOTED_IDENTIFIER)) {
                out.add(
                        name.kind() == Token.Kind.QUOTED_IDENTIFIER
                                ? TableName.fold(name.text())
                                : name.text().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    /**
     * The table names pgjdbc could write through an updatable result set over {@code query}: pgjdbc
     * ({@code PgResultSet.parseQuery}) splits the text at spaces, tabs, CR and LF alone, comments and literals
     * included, and takes the piece after the word {@code from} ({@code only} skipped) as the table of its own
     * {@code UPDATE}, {@code INSERT} and {@code DELETE}. Every such piece is returned (pgjdbc takes the first of
     * the statement it ran, which may be a later one of a multi-statement text), as pgjdbc would write it.
     */
    public static List<String> pgjdbcRowWriteTables(String query) {
        List<String> out = new ArrayList<>();
        java.util.StringTokenizer st = new java.util.StringTokenizer(query, " \r\t\n");
        boolean afterFrom = false;
        while (st.hasMoreTokens()) {
            String piece = st.nextToken();
            if (afterFrom) {
                if (piece.equalsIgnoreCase("only") && st.hasMoreTokens()) {
                    piece = st.nextToken();
                }
                out.add(piece);
                afterFrom = false;
            } else {
                afterFrom = piece.equalsIgnoreCase("from");
            }
        }
        return out;
    }

    /** The relations a query reads from (last name part, folded): the names after FROM and JOIN. */
    public static List<String> readRelations(String sql) {
        List<String> out = new ArrayList<>();
        List<Token> tokens = SqlLexer.tokenize(sql);
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (!tokens.get(i).isWord("FROM") && !tokens.get(i).isWord("JOIN")) {
                continue;
            }
            int j = i + 1;
            if (tokens.get(j).isWord("ONLY")) {
                j++;
            }
            String last = null;
            while (j < tokens.size()) {
                Token t = tokens.get(j);
                if (t.kind() != Token.Kind.WORD && t.kind() != Token.Kind.QUOTED_IDENTIFIER) {
                    break;
                }
                last = TableName.fold(t.text());
                if (j + 1 < tokens.size() && tokens.get(j + 1).isSymbol(".")) {
                    j += 2;
                    continue;
                }
                break;
            }
            if (last != null) {
                out.add(last);
            }
        }
        return out;
    }

    /** True when a statement of the text is an anonymous code block ({@code DO}). */
    public static boolean hasDoBlock(String sql) {
        if (!containsWord(sql, "do")) {
            return false;
        }
        for (StatementClassifier.Piece piece : StatementClassifier.split(SqlLexer.tokenize(sql))) {
            if (piece.firstWord.equals("DO")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The relations the text's INSERT / UPDATE / DELETE / MERGE / TRUNCATE / COPY statements name as their
     * target (last name part, folded): what a write could reach. Empty for a text with no write verb.
     */
    public static List<String> writeTargets(String sql) {
        List<String> out = new ArrayList<>();
        for (TableName name : writeTargetNames(sql)) {
            out.add(name.name());
        }
        return out;
    }

    /** Like {@link #writeTargets}, each name with its schema as written (null when unqualified). */
    public static List<TableName> writeTargetNames(String sql) {
        boolean any = false;
        for (String verb : WRITE_VERBS) {
            if (FencingTargets.containsIgnoreCase(sql, verb.toLowerCase(Locale.ROOT))) {
                any = true;
                break;
            }
        }
        if (!any) {
            return List.of();
        }
        List<Token> tokens = SqlLexer.tokenize(sql);
        List<Integer> starts = new ArrayList<>(StatementClassifier.dmlKeywordIndexes(tokens));
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).isWord("TRUNCATE") || tokens.get(i).isWord("COPY")) {
                starts.add(i);
            }
        }
        List<TableName> out = new ArrayList<>();
        for (int start : starts) {
            int i = start + 1;
            while (i < tokens.size()
                    && (tokens.get(i).isWord("INTO")
                            || tokens.get(i).isWord("FROM")
                            || tokens.get(i).isWord("ONLY")
                            || tokens.get(i).isWord("TABLE"))) {
                i++;
            }
            i = readName(tokens, i, out);
            // TRUNCATE a, s.b, ONLY c: every listed name
            if (tokens.get(start).isWord("TRUNCATE")) {
                while (i < tokens.size() && tokens.get(i).isSymbol(",")) {
                    i++;
                    if (i < tokens.size() && tokens.get(i).isWord("ONLY")) {
                        i++;
                    }
                    i = readName(tokens, i, out);
                }
            }
        }
        return out;
    }

    /** Reads a dotted name chain starting at {@code i} into {@code out}; returns the index after it. */
    private static int readName(List<Token> tokens, int i, List<TableName> out) {
        String schema = null;
        String last = null;
        while (i < tokens.size()) {
            Token t = tokens.get(i);
            if (t.kind() != Token.Kind.WORD && t.kind() != Token.Kind.QUOTED_IDENTIFIER) {
                break;
            }
            schema = last;
            last = TableName.fold(t.text());
            i++;
            if (i < tokens.size() && tokens.get(i).isSymbol(".")) {
                i++;
                continue;
            }
            break;
        }
        if (last != null) {
            out.add(new TableName(schema, last));
        }
        return i;
    }

    /**
     * For {@code ALTER SCHEMA s RENAME TO ...} where {@code s} qualifies a registered table: that table's name
     * (renaming the schema would move it out from under its registered name); else null.
     */
    static @Nullable String schemaRenamed(List<Token> tokens, FencingTargets targets) {
        if (tokens.size() < 4
                || !tokens.get(0).isWord("ALTER")
                || !tokens.get(1).isWord("SCHEMA")
                || !StatementClassifier.hasWord(tokens, Set.of("RENAME"))) {
            return null;
        }
        Token name = tokens.get(2);
        if (name.kind() != Token.Kind.WORD && name.kind() != Token.Kind.QUOTED_IDENTIFIER) {
            return null;
        }
        String schema = TableName.fold(name.text());
        for (ProtectedTable p : targets.tables()) {
            if (p.name().schema() != null && TableName.sameName(p.name().schema(), schema)) {
                return p.displayName();
            }
        }
        return null;
    }

    /** True when a statement of the text renames a schema a registered table is qualified with. */
    public static boolean renamesProtectedSchema(String sql, FencingTargets targets) {
        if (!containsWord(sql, "schema") || !containsWord(sql, "rename")) {
            return false;
        }
        for (StatementClassifier.Piece piece : StatementClassifier.split(SqlLexer.tokenize(sql))) {
            if (schemaRenamed(piece.tokens, targets) != null) {
                return true;
            }
        }
        return false;
    }

    /** A protected name a text mentions, and the strictest mode of every protected name in it. */
    public record Mention(String table, FencingMode mode) {}

    /**
     * The first protected table or view the text names and the strictest mode among all the protected
     * names it contains (a view, or a {@code U&} escape that could spell anything, counts as the strictest
     * mode configured), or null when it names none. Matching ignores case: a superset only makes the
     * answer stricter.
     */
    public static @Nullable Mention mention(String sql, FencingTargets targets) {
        if (!targets.mayMention(sql)) {
            return null;
        }
        String first = null;
        FencingMode strictest = null;
        for (Token t : SqlLexer.tokenize(sql)) {
            if (t.kind() != Token.Kind.WORD && t.kind() != Token.Kind.QUOTED_IDENTIFIER) {
                continue;
            }
            boolean escape = t.isUnicodeEscapedName();
            String folded = escape ? t.text() : TableName.fold(t.text());
            if (!escape && !targets.isWatchedName(folded)) {
                continue;
            }
            boolean table = false;
            for (ProtectedTable p : targets.tables()) {
                if (escape || p.name().name().equalsIgnoreCase(folded)) {
                    strictest = stricter(strictest, p.mode());
                    first = first == null ? p.displayName() : first;
                    table = true;
                }
            }
            if (!table) {
                for (ProtectedTable p : targets.tables()) {
                    strictest = stricter(strictest, p.mode());
                }
                first = first == null ? folded : first;
            }
        }
        return first == null ? null : new Mention(first, strictest == null ? FencingMode.ENFORCE : strictest);
    }

    /** ENFORCE over OBSERVE over OFF; a null {@code a} counts as nothing. */
    public static FencingMode stricter(@Nullable FencingMode a, FencingMode b) {
        if (a == null) {
            return b;
        }
        return a.ordinal() <= b.ordinal() ? a : b;
    }

    /** Case-insensitive search for {@code word} not inside a longer identifier. */
    static boolean containsWord(String text, String word) {
        int n = word.length();
        for (int i = 0; i + n <= text.length(); i++) {
            if (text.regionMatches(true, i, word, 0, n)
                    && (i == 0 || !SqlLexer.isIdentPart(text.charAt(i - 1)))
                    && (i + n == text.length() || !SqlLexer.isIdentPart(text.charAt(i + n)))) {
                return true;
            }
        }
        return false;
    }
}
