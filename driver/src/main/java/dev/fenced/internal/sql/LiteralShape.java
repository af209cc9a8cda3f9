package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A text with its inert literals masked: the key under which {@link ShapeCache} keeps one plan for every text that
 * differs only in them. The literals are the tokens PostgreSQL's lexer ({@link SqlLexer}) calls string constants
 * and numbers; the string constants are the ones {@link Literals} already keeps away from JSqlParser, so the parser
 * never sees them whichever text they come from.
 *
 * <p>A literal is masked only where its value cannot change the plan, and everything else stays in the key as
 * written (two texts share a key only when they differ in masked literals alone):
 *
 * <ul>
 *   <li>a plain {@code '...'} (or {@code E'...'}, {@code N'...'}) string with no backslash, {@code ?}, {@code $},
 *       brace, semicolon, control character or comment opener in it: its bytes lex the same with
 *       standard_conforming_strings off, pgjdbc finds no parameter or escape in it, and no lexer rule can end it
 *       early. Dollar quotes, {@code U&''} and bit strings stay in the key;
 *   <li>a number written as plain digits (at most nine, no leading zero) or {@code digits.digits} as Java
 *       spells that double ({@code 1.5}, {@code 10.0}; not {@code 1.50}, {@code 0.0001}): JSqlParser reads it
 *       whatever its value and prints it as written. Other spellings ({@code 1e5}, {@code 0x1F},
 *       {@code 1_000}, {@code .5}) stay in the key;
 *   <li>and neither inside an array subscript ({@code a[1]}; {@code ARRAY[1, 2]} is values) nor after {@code ORDER}, {@code GROUP}, {@code LIMIT},
 *       {@code OFFSET}, {@code FETCH} at the same nesting level, where a number is a column position or a row
 *       count.
 * </ul>
 *
 * Only texts whose every statement starts with INSERT, UPDATE, DELETE, MERGE, WITH or SELECT are shaped (no
 * {@code EXPLAIN (ANALYZE 0)}, no SET, DO or utility statement whose options are literals), and none with a brace
 * (JDBC escapes, translated by pgjdbc before fencing), a NUL, a literal spelled like a stand-in, or a text the
 * lexer rejects.
 */
final class LiteralShape {

    /** First words of the statements a shaped text may hold. */
    private static final List<String> SHAPED_STATEMENTS =
            List.of("INSERT", "UPDATE", "DELETE", "MERGE", "WITH", "SELECT");

    /** Words after which, at the same nesting level, a number may be a position or a count. */
    private static final List<String> COUNTING_CLAUSES = List.of("ORDER", "GROUP", "LIMIT", "OFFSET", "FETCH");

    /** Stands for a masked literal in a key; no text that is shaped holds it. */
    private static final char MASK = '\0';

    private final String sql;
    private final String key;
    private final int[] starts;
    private final int[] ends;
    private final String[] literals;

    private LiteralShape(String sql, String key, int[] starts, int[] ends, String[] literals) {
        this.sql = sql;
        this.key = key;
        this.starts = starts;
        this.ends = ends;
        this.literals = literals;
    }

    /** The shape of {@code sql}, or null when it is not shaped or has no literal to mask. */
    static @Nullable LiteralShape of(String sql) {
        if (sql.indexOf('{') >= 0 || sql.indexOf(MASK) >= 0) {
            return null;
        }
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenizeStrict(sql);
        } catch (SqlLexer.LexException e) {
            return null;
        }
        int n = tokens.size();
        int[] starts = new int[n];
        int[] ends = new int[n];
        List<String> literals = new ArrayList<>();
        StringBuilder key = new StringBuilder(sql.length());
        // one entry per open parenthesis or bracket: '(' / '[', and 'c' for a '(' level a counting clause has begun
        char[] levels = new char[16];
        int depth = 0;
        levels[0] = '(';
        boolean pieceStart = true;
        int copied = 0;
        Token previous = null;
        for (Token t : tokens) {
            if (pieceStart) {
                if (!isOneOf(t, SHAPED_STATEMENTS)) {
                    return null;
                }
                pieceStart = false;
            }
            switch (t.kind()) {
                case SYMBOL -> {
                    String s = t.text();
                    if (s.equals("(") || s.equals("[")) {
                        if (++depth == levels.length) {
                            levels = Arrays.copyOf(levels, depth * 2);
                        }
                        // ARRAY[1, 2] builds an array: its elements are values, not subscripts
                        levels[depth] = previous != null && previous.isWord("ARRAY") ? '(' : s.charAt(0);
                    } else if ((s.equals(")") || s.equals("]")) && depth > 0) {
                        depth--;
                    } else if (s.equals(";")) {
                        depth = 0;
                        levels[0] = '(';
                        pieceStart = true;
                    }
                }
                case WORD -> {
                    if (isOneOf(t, COUNTING_CLAUSES)) {
                        levels[depth] = 'c';
                    }
                }
                case STRING, NUMBER -> {
                    if (looksLikeStandIn(t)) {
                        return null;
                    }
                    char mark = levels[depth] == '(' ? classOf(t) : 0;
                    if (mark != 0) {
                        key.append(sql, copied, t.start()).append(MASK).append(mark);
                        if (mark == '\'') {
                            key.append(t.text(), 0, t.text().indexOf('\'')); // the prefix: E, N or none
                        }
                        // closed, so the prefix cannot run into the text after it: 'a'e (the alias e) is not e'a'
                        key.append(MASK);
                        copied = t.end();
                        starts[literals.size()] = t.start();
                        ends[literals.size()] = t.end();
                        literals.add(t.text());
                    }
                }
                default -> {}
            }
            previous = t;
        }
        if (literals.isEmpty()) {
            return null;
        }
        key.append(sql, copied, sql.length());
        int count = literals.size();
        return new LiteralShape(
                sql,
                key.toString(),
                Arrays.copyOf(starts, count),
                Arrays.copyOf(ends, count),
                literals.toArray(new String[0]));
    }

    /**
     * A literal spelled like one of {@link #standIn}'s stand-ins ({@code '~0~'}, {@code 975310000},
     * {@code 97531.07}), masked or not. A text holding one is not shaped: its probe would hold the same token twice
     * (a {@code LIMIT 975310000} kept in the key taken for literal 0's place), or be the text itself, so pasting the
     * text's own literals back would prove nothing about where the stand-ins landed.
     */
    private static boolean looksLikeStandIn(Token t) {
        String text = t.text();
        if (t.kind() == Token.Kind.STRING) {
            return text.contains("'~");
        }
        // integer stand-ins count up from 975310000, one per literal: any nine-digit number from there on
        return text.startsWith("97531.") || (digits(text, 9) && text.length() == 9 && text.compareTo("975310000") >= 0);
    }

    /** A word among {@code words} (upper case), compared without a copy of the token's text. */
    private static boolean isOneOf(Token t, List<String> words) {
        if (t.kind() != Token.Kind.WORD || t.end() - t.start() > 6) {
            return false;
        }
        for (String w : words) {
            if (t.isWord(w)) {
                return true;
            }
        }
        return false;
    }

    /** {@code '} for a maskable string, {@code i} for a plain integer, {@code d} for a decimal, else 0. */
    private static char classOf(Token t) {
        String text = t.text();
        if (t.kind() == Token.Kind.STRING) {
            return plainString(text) ? '\'' : 0;
        }
        int dot = text.indexOf('.');
        String whole = dot < 0 ? text : text.substring(0, dot);
        if (!digits(whole, 9) || (whole.length() > 1 && whole.charAt(0) == '0')) {
            return 0;
        }
        if (dot < 0) {
            return 'i';
        }
        // JSqlParser reads a decimal as a double in places (TABLESAMPLE) and prints it as Java does: 1.50 comes back
        // 1.5 and that text is fenced by position instead, so only a decimal Java spells as written is masked
        return digits(text.substring(dot + 1), 9)
                        && Double.toString(Double.parseDouble(text)).equals(text)
                ? 'd'
                : 0;
    }

    private static boolean digits(String s, int most) {
        if (s.isEmpty() || s.length() > most) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * A {@code '...'} string, bare or after {@code E} or {@code N}, whose body holds nothing any reader (PostgreSQL
     * with either setting of standard_conforming_strings, pgjdbc's parameter scan) treats specially: quotes only as
     * doubled pairs, no backslash, {@code ?}, {@code $}, braces, semicolon, control character or comment opener.
     */
    private static boolean plainString(String text) {
        int open = text.indexOf('\'');
        if (open > 1 || text.length() < open + 2 || text.charAt(text.length() - 1) != '\'') {
            return false;
        }
        if (open == 1 && "EeNn".indexOf(text.charAt(0)) < 0) {
            return false;
        }
        int end = text.length() - 1;
        for (int i = open + 1; i < end; i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                if (i + 1 >= end || text.charAt(i + 1) != '\'') {
                    return false; // a quote not doubled: a continuation ('a'\n'b') or something unforeseen
                }
                i++;
            } else if (c < ' '
                    || c == '\\'
                    || c == '?'
                    || c == '$'
                    || c == '{'
                    || c == '}'
                    || c == ';'
                    || c == 0x7f
                    || (c == '-' && text.charAt(i + 1) == '-')
                    || (c == '/' && text.charAt(i + 1) == '*')
                    || (c == '*' && text.charAt(i + 1) == '/')) {
                return false;
            }
        }
        return true;
    }

    /** The key: the text with each masked literal replaced by a mark of its class, closed by a NUL. */
    String key() {
        return key;
    }

    /** The masked literals, as written, in text order. */
    String[] literals() {
        return literals;
    }

    /**
     * This text with each masked literal replaced by a distinct stand-in of the same class ({@code '~3~'},
     * {@code 975310003}, {@code 97531.37}): planned, it shows where each literal lands in the plan's text.
     */
    String probe() {
        StringBuilder b = new StringBuilder(sql.length() + literals.length * 8);
        int copied = 0;
        for (int i = 0; i < literals.length; i++) {
            b.append(sql, copied, starts[i]).append(standIn(i));
            copied = ends[i];
        }
        return b.append(sql, copied, sql.length()).toString();
    }

    /** The stand-in for literal {@code i} in {@link #probe()}. */
    String standIn(int i) {
        String literal = literals[i];
        int quote = literal.indexOf('\'');
        if (quote >= 0) {
            return literal.substring(0, quote) + "'~" + i + "~'";
        }
        // a decimal stand-in ends in 7: a printer that drops trailing zeros would still print it as written
        return literal.indexOf('.') >= 0 ? "97531." + i + "7" : Integer.toString(975_310_000 + i);
    }

    @Override
    public String toString() {
        return key.replace(MASK, '§');
    }
}
