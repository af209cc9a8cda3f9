package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Splits SQL into tokens exactly where PostgreSQL's scanner ({@code src/backend/parser/scan.l}) splits it:
 * this lexer is the authority for what fenced sends, not JSqlParser. Comments ({@code --} to the end of the
 * line, {@code /* *}{@code /} nested) and whitespace are dropped; every other token keeps its exact source
 * span. The rules followed, each as scan.l states them:
 * <ul>
 * <li>whitespace is only {@code space \t \n \r \f}; {@code \v} (whitespace from PostgreSQL 16 on, not
 *     before) is a lexical hazard and reported, so no version reads it differently from us;</li>
 * <li>{@code '...'}: {@code ''} doubles a quote; a backslash escapes only when
 *     {@code standard_conforming_strings} is off; {@code E'...'} always takes backslash escapes
 *     ({@code \'} included); {@code B'', X'', N'', U&''} as plain strings; a string continues across
 *     whitespace holding a newline ({@code 'a'<newline>'b'} is one token, {@code --} comments allowed in
 *     the gap, block comments not);</li>
 * <li>{@code $tag$...$tag$} with a tag of identifier characters without {@code $} and not starting with a
 *     digit; {@code $} inside an identifier continues it ({@code y$a$} is one identifier, not a quote);
 *     {@code $1} is a positional parameter; a lone {@code $} is a single character;</li>
 * <li>{@code "..."} and {@code U&"..."} quoted identifiers;</li>
 * <li>operators: a run of {@code ~!@#^&|`?+-*}{@code /%<>=} that stops before {@code --} or {@code /*},
 *     and a multi-character operator does not end in {@code +} or {@code -} unless it holds one of
 *     {@code ~!@#^&|`?%}; {@code ::}, {@code :=}, {@code ..} are two-character tokens;</li>
 * <li>numbers: decimal with {@code _} separators, {@code 0x}/{@code 0o}/{@code 0b} integers, decimals,
 *     exponents; a number running straight into an identifier character is an error in PostgreSQL 15+ and
 *     reported here.</li>
 * </ul>
 * In {@link Mode#JDBC} (the default) a {@code ?} outside literals and comments is a JDBC parameter, as pgjdbc
 * reads it ({@code ?N} once fenced has numbered them), and {@code ??} is pgjdbc's escape for a {@code ?}
 * operator; in {@link Mode#SERVER} {@code ?} is an operator character, as the server sees it.
 */
final class SqlLexer {

    /** How {@code ?} is read. */
    enum Mode {
        /** A text handed to pgjdbc: {@code ?} is a placeholder. */
        JDBC,
        /** A text as the server receives it: {@code ?} is an operator character. */
        SERVER
    }

    private final String sql;
    private final int length;
    private final boolean standardConformingStrings;
    private final Mode mode;
    private int pos;
    private @Nullable String error;
    private boolean errorEveryVersionRejects;

    private SqlLexer(String sql, boolean standardConformingStrings, Mode mode) {
        this.sql = sql;
        this.length = sql.length();
        this.standardConformingStrings = standardConformingStrings;
        this.mode = mode;
    }

    /** Lenient: what cannot be read (an unterminated string, a hazard) ends the list or is kept whole. */
    static List<Token> tokenize(String sql) {
        return new SqlLexer(sql, true, Mode.JDBC).run();
    }

    /** Thrown for text PostgreSQL would reject at the lexical level, or that fenced will not risk reading. */
    static final class LexException extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean everyVersionRejects;

        LexException(String message, boolean everyVersionRejects) {
            super(message);
            this.everyVersionRejects = everyVersionRejects;
        }

        /**
         * True when every PostgreSQL version rejects the text for this (an unterminated string, comment or
         * identifier, a U&'' string with standard_conforming_strings off), not only some (trailing junk after a
         * number is an error from 15 on) or none (a hazard fenced refuses to read).
         */
        boolean everyVersionRejects() {
            return everyVersionRejects;
        }
    }

    /** Like {@link #tokenize} but reporting unterminated constructs and hazards instead of swallowing them. */
    static List<Token> tokenizeStrict(String sql) throws LexException {
        return tokenizeStrict(sql, true, Mode.JDBC);
    }

    static List<Token> tokenizeStrict(String sql, boolean standardConformingStrings, Mode mode) throws LexException {
        SqlLexer lexer = new SqlLexer(sql, standardConformingStrings, mode);
        List<Token> tokens = lexer.run();
        if (lexer.error != null) {
            throw new LexException(lexer.error, lexer.errorEveryVersionRejects);
        }
        return tokens;
    }

    private void fail(String message) {
        fail(message, false);
    }

    private void fail(String message, boolean everyVersionRejects) {
        if (error == null) {
            error = message;
            errorEveryVersionRejects = everyVersionRejects;
        }
    }

    /**
     * The starts of the {@code $n} parameters of {@code sql} as the server reads it ({@link Mode#SERVER}), strictly:
     * all pgjdbc's reading is compared with, without a token for every word of the text (a tombstone DELETE's text
     * is a few hundred).
     */
    static int[] positionalParameterStarts(String sql, boolean standardConformingStrings) throws LexException {
        SqlLexer lexer = new SqlLexer(sql, standardConformingStrings, Mode.SERVER);
        ParameterStarts starts = new ParameterStarts();
        lexer.scan(starts);
        if (lexer.error != null) {
            throw new LexException(lexer.error, lexer.errorEveryVersionRejects);
        }
        return Arrays.copyOf(starts.starts, starts.count);
    }

    /** Keeps where each {@code $n} starts, nothing else. */
    private static final class ParameterStarts implements Sink {
        private int[] starts = new int[8];
        private int count;

        @Override
        public void token(Token.Kind kind, int start, int end) {
            if (kind == Token.Kind.POSITIONAL_PARAMETER) {
                if (count == starts.length) {
                    starts = Arrays.copyOf(starts, count * 2);
                }
                starts[count++] = start;
            }
        }
    }

    /** Takes each token as it is read. */
    private interface Sink {
        void token(Token.Kind kind, int start, int end);
    }

    private List<Token> run() {
        // about a token for every three to four characters of SQL (a MERGE's fenced text, three): sized once rather
        // than grown (copied), which was a twentieth of a new MERGE's plan
        List<Token> out = new ArrayList<>(Math.max(10, length / 3));
        // its text is cut from sql only if asked for
        scan((kind, start, end) -> out.add(new Token(kind, sql, start, end)));
        return out;
    }

    /** The one reading of the text: every token, in order, to {@code sink}. */
    private void scan(Sink sink) {
        while (true) {
            skipSpaceAndComments();
            if (pos >= length) {
                return;
            }
            int start = pos;
            Token.Kind kind = next();
            sink.token(kind, start, pos);
        }
    }

    /** scan.l's {@code space}. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    }

    private void skipSpaceAndComments() {
        while (pos < length) {
            char c = sql.charAt(pos);
            if (isSpace(c)) {
                pos++;
            } else if (c == '\u000B') {
                fail("a vertical tab at offset " + pos + " (whitespace to PostgreSQL 16+, not to earlier versions)");
                pos++;
            } else if (c == '-' && peek(1) == '-') {
                skipLineComment();
            } else if (c == '/' && peek(1) == '*') {
                skipBlockComment();
            } else {
                return;
            }
        }
    }

    private void skipLineComment() {
        while (pos < length && sql.charAt(pos) != '\n' && sql.charAt(pos) != '\r') {
            pos++;
        }
    }

    /** scan.l's {@code xc} state: {@code /*} opens a level anywhere inside, {@code *}{@code /} closes one. */
    private void skipBlockComment() {
        int start = pos;
        int depth = 0;
        pos += 2;
        while (pos < length) {
            if (sql.charAt(pos) == '/' && peek(1) == '*') {
                depth++;
                pos += 2;
            } else if (sql.charAt(pos) == '*' && peek(1) == '/') {
                pos += 2;
                if (depth == 0) {
                    return;
                }
                depth--;
            } else {
                pos++;
            }
        }
        fail("unterminated /* comment starting at offset " + start, true);
    }

    private char peek(int ahead) {
        int i = pos + ahead;
        return i < length ? sql.charAt(i) : '\0';
    }

    /** Reads the token at {@code pos}, leaving {@code pos} after it: its kind. */
    private Token.Kind next() {
        int start = pos;
        char c = sql.charAt(pos);
        char n1 = peek(1);

        if ((c == 'e' || c == 'E') && n1 == '\'') {
            pos++;
            string(true);
            return Token.Kind.STRING;
        }
        if ((c == 'b' || c == 'B' || c == 'x' || c == 'X') && n1 == '\'') {
            // scan.l's xb/xh states: no doubled quote, the first quote ends the body.
            pos++;
            bitString();
            return Token.Kind.STRING;
        }
        if ((c == 'n' || c == 'N') && n1 == '\'') {
            // NCHAR keyword, then an ordinary string: its backslashes follow standard_conforming_strings.
            pos++;
            string(!standardConformingStrings);
            return Token.Kind.STRING;
        }
        if ((c == 'u' || c == 'U') && n1 == '&' && (peek(2) == '\'' || peek(2) == '"')) {
            char q = peek(2);
            pos += 2;
            if (q == '"') {
                quotedIdentifier();
                return Token.Kind.QUOTED_IDENTIFIER;
            }
            if (!standardConformingStrings) {
                fail("a U&'' string with standard_conforming_strings off (PostgreSQL rejects it)", true);
            }
            string(false);
            return Token.Kind.STRING;
        }
        if (c == '\'') {
            string(!standardConformingStrings);
            return Token.Kind.STRING;
        }
        if (c == '"') {
            quotedIdentifier();
            return Token.Kind.QUOTED_IDENTIFIER;
        }
        if (c == '$') {
            return dollar(start);
        }
        if (isIdentStart(c)) {
            pos++;
            while (pos < length && isIdentPart(sql.charAt(pos))) {
                pos++;
            }
            return Token.Kind.WORD;
        }
        if (isDigit(c) || (c == '.' && isDigit(n1))) {
            number();
            return Token.Kind.NUMBER;
        }
        if (c == '?' && mode == Mode.JDBC) {
            if (n1 == '?') {
                // pgjdbc: "??" is an escaped "?" operator, sent to the server as a single "?".
                pos += 2;
                return Token.Kind.SYMBOL;
            }
            pos++;
            while (pos < length && isDigit(sql.charAt(pos))) {
                pos++;
            }
            if (pos < length && isIdentPart(sql.charAt(pos))) {
                fail("a parameter running into an identifier at offset " + start);
            }
            return Token.Kind.PARAMETER;
        }
        if (isOperatorChar(c)) {
            operator();
            return Token.Kind.SYMBOL;
        }
        if ((c == ':' && (n1 == ':' || n1 == '=')) || (c == '.' && n1 == '.')) {
            pos += 2;
            return Token.Kind.SYMBOL;
        }
        pos++;
        return Token.Kind.SYMBOL;
    }

    /** {@code $1}, {@code $tag$...$tag$}, or a lone {@code $} (scan.l's {@code dolqfailed} and {@code other}). */
    private Token.Kind dollar(int start) {
        if (isDigit(peek(1))) {
            pos++;
            while (pos < length && isDigit(sql.charAt(pos))) {
                pos++;
            }
            if (pos < length && isIdentStart(sql.charAt(pos))) {
                fail("trailing junk after parameter at offset " + start);
            }
            return Token.Kind.POSITIONAL_PARAMETER;
        }
        int tagEnd = dollarTagEnd(pos);
        if (tagEnd < 0) {
            pos++;
            return Token.Kind.SYMBOL;
        }
        String tag = sql.substring(pos, tagEnd);
        int close = sql.indexOf(tag, tagEnd);
        if (close < 0) {
            fail("unterminated dollar-quoted string starting at offset " + start, true);
            pos = length;
        } else {
            pos = close + tag.length();
        }
        return Token.Kind.STRING;
    }

    /** End (exclusive) of a {@code $tag$} delimiter opening at {@code at}, or -1 when there is none. */
    private int dollarTagEnd(int at) {
        int i = at + 1;
        if (i < length && sql.charAt(i) != '$') {
            if (!isDollarTagStart(sql.charAt(i))) {
                return -1;
            }
            i++;
            while (i < length && isDollarTagPart(sql.charAt(i))) {
                i++;
            }
        }
        return i < length && sql.charAt(i) == '$' ? i + 1 : -1;
    }

    /**
     * A {@code '...'} body from the opening quote, then any continuation {@code '...'} joined to it by
     * whitespace holding a newline (scan.l's {@code quotecontinue}); the continuation reads backslashes as
     * the first part does.
     */
    private void string(boolean backslashEscapes) {
        int start = pos;
        while (true) {
            if (!quotedBody(backslashEscapes)) {
                fail("unterminated quoted string starting at offset " + start, true);
                return;
            }
            int after = continuation(pos);
            if (after < 0) {
                return;
            }
            pos = after;
        }
    }

    /** {@code B'...'} / {@code X'...'}: like {@link #string} but {@code ''} is not an escaped quote. */
    private void bitString() {
        int start = pos;
        while (true) {
            int close = sql.indexOf('\'', pos + 1);
            if (close < 0) {
                pos = length;
                fail("unterminated bit string starting at offset " + start, true);
                return;
            }
            pos = close + 1;
            int after = continuation(pos);
            if (after < 0) {
                return;
            }
            pos = after;
        }
    }

    /** Consumes {@code '...'} from the quote at {@code pos}; false when it never closes. */
    private boolean quotedBody(boolean backslashEscapes) {
        pos++;
        while (pos < length) {
            char c = sql.charAt(pos);
            if (backslashEscapes && c == '\\') {
                pos = Math.min(length, pos + 2);
                continue;
            }
            if (c == '\'') {
                if (peek(1) == '\'') {
                    pos += 2;
                    continue;
                }
                pos++;
                return true;
            }
            pos++;
        }
        return false;
    }

    /**
     * scan.l's {@code {quote}{whitespace_with_newline}{quote}}: horizontal space and {@code --} comments,
     * a newline, then any whitespace and {@code --}comment-newline runs, then a quote. Returns the index of
     * that quote, or -1.
     */
    private int continuation(int from) {
        int i = from;
        boolean newline = false;
        while (i < length) {
            char c = sql.charAt(i);
            if (c == ' ' || c == '\t' || c == '\f') {
                i++;
            } else if (c == '\n' || c == '\r') {
                newline = true;
                i++;
            } else if (c == '-' && i + 1 < length && sql.charAt(i + 1) == '-') {
                while (i < length && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
                if (newline && i >= length) {
                    return -1; // after the newline a comment must itself end in a newline
                }
            } else {
                break;
            }
        }
        return newline && i < length && sql.charAt(i) == '\'' ? i : -1;
    }

    private void quotedIdentifier() {
        int start = pos;
        pos++;
        while (pos < length) {
            if (sql.charAt(pos) == '"') {
                if (peek(1) == '"') {
                    pos += 2;
                    continue;
                }
                pos++;
                if (pos - start == 2) {
                    fail("zero-length delimited identifier at offset " + start);
                }
                return;
            }
            pos++;
        }
        fail("unterminated quoted identifier starting at offset " + start, true);
    }

    /** scan.l's {@code operator} rule with its two cuts: comment starts, and trailing {@code +}/{@code -}. */
    private void operator() {
        int start = pos;
        int end = pos;
        while (end < length && isOperatorChar(sql.charAt(end))) {
            end++;
        }
        for (int i = start + 1; i < end; i++) {
            char a = sql.charAt(i - 1);
            char b = sql.charAt(i);
            if ((a == '-' && b == '-') || (a == '/' && b == '*')) {
                end = i - 1;
                break;
            }
        }
        int n = end - start;
        while (n > 1 && (sql.charAt(start + n - 1) == '+' || sql.charAt(start + n - 1) == '-')) {
            boolean keeps = false;
            for (int i = start; i < start + n - 1; i++) {
                if ("~!@#^&|`?%".indexOf(sql.charAt(i)) >= 0) {
                    keeps = true;
                    break;
                }
            }
            if (keeps) {
                break;
            }
            n--;
        }
        pos = start + Math.max(n, 1);
    }

    /** scan.l's numeric rules (PostgreSQL 16: {@code _} separators, {@code 0x 0o 0b}); junk after is an error. */
    private void number() {
        int start = pos;
        char c = sql.charAt(pos);
        char radix = Character.toLowerCase(peek(1));
        if (c == '0' && (radix == 'x' || radix == 'o' || radix == 'b')) {
            pos += 2;
            int digits = pos;
            while (pos < length && (isRadixDigit(sql.charAt(pos), radix) || sql.charAt(pos) == '_')) {
                pos++;
            }
            if (pos == digits) {
                fail("an invalid " + radix + " integer at offset " + start);
            }
        } else {
            decimalDigits();
            if (pos < length && sql.charAt(pos) == '.' && peek(1) != '.') {
                pos++;
                decimalDigits();
            }
            if (pos < length && (sql.charAt(pos) == 'e' || sql.charAt(pos) == 'E')) {
                int save = pos;
                pos++;
                if (pos < length && (sql.charAt(pos) == '+' || sql.charAt(pos) == '-')) {
                    pos++;
                }
                if (pos < length && isDigit(sql.charAt(pos))) {
                    decimalDigits();
                } else {
                    fail("an exponent without digits at offset " + save);
                    pos = save;
                }
            }
        }
        if (pos < length && isIdentStart(sql.charAt(pos))) {
            fail("trailing junk after numeric literal at offset " + start);
        }
    }

    private void decimalDigits() {
        while (pos < length
                && (isDigit(sql.charAt(pos))
                        || (sql.charAt(pos) == '_'
                                && pos + 1 < length
                                && isDigit(sql.charAt(pos + 1))
                                && pos > 0
                                && isDigit(sql.charAt(pos - 1))))) {
            pos++;
        }
    }

    private static boolean isRadixDigit(char c, char radix) {
        return switch (radix) {
            case 'x' -> isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            case 'o' -> c >= '0' && c <= '7';
            default -> c == '0' || c == '1';
        };
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** scan.l's {@code ident_start}: ASCII letters, underscore, and every non-ASCII character. */
    static boolean isIdentStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c > 127;
    }

    /** scan.l's {@code ident_cont}: adds digits and {@code $}. */
    static boolean isIdentPart(char c) {
        return isIdentStart(c) || isDigit(c) || c == '$';
    }

    private static boolean isDollarTagStart(char c) {
        return isIdentStart(c);
    }

    private static boolean isDollarTagPart(char c) {
        return isIdentStart(c) || isDigit(c);
    }

    private boolean isOperatorChar(char c) {
        return "~!@#^&|`+-*/%<>=".indexOf(c) >= 0 || (c == '?' && mode == Mode.SERVER);
    }
}
