package dev.fenced.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits PostgreSQL SQL into tokens the way the server and pgjdbc see it: comments (nested
 * {@code /* *}{@code /} too) and whitespace dropped; strings in every PostgreSQL form kept whole, so a
 * table name inside a literal is never mistaken for a reference; {@code ?} outside them is a JDBC
 * parameter unless doubled ({@code ??} is pgjdbc's escape for the {@code ?} operator).
 *
 * <p>Assumes {@code standard_conforming_strings = on}, PostgreSQL's default since 9.1: in a plain
 * {@code '...'} a backslash is an ordinary character.
 */
final class SqlLexer {

    private final String sql;
    private final int length;
    private int pos;

    private SqlLexer(String sql) {
        this.sql = sql;
        this.length = sql.length();
    }

    static List<Token> tokenize(String sql) {
        return new SqlLexer(sql).run();
    }

    /** Thrown for text that is not SQL at the lexical level (an unterminated string or comment). */
    static final class LexException extends Exception {
        private static final long serialVersionUID = 1L;

        LexException(String message) {
            super(message);
        }
    }

    /** Like {@link #tokenize} but reporting unterminated constructs instead of swallowing them. */
    static List<Token> tokenizeStrict(String sql) throws LexException {
        SqlLexer lexer = new SqlLexer(sql);
        List<Token> tokens = lexer.run();
        if (lexer.unterminated != null) {
            throw new LexException(lexer.unterminated);
        }
        return tokens;
    }

    private String unterminated;

    private List<Token> run() {
        List<Token> out = new ArrayList<>();
        while (true) {
            skipSpaceAndComments();
            if (pos >= length) {
                return out;
            }
            out.add(next());
        }
    }

    private void skipSpaceAndComments() {
        while (pos < length) {
            char c = sql.charAt(pos);
            if (Character.isWhitespace(c)) {
                pos++;
            } else if (c == '-' && peek(1) == '-') {
                while (pos < length && sql.charAt(pos) != '\n' && sql.charAt(pos) != '\r') {
                    pos++;
                }
            } else if (c == '/' && peek(1) == '*') {
                int depth = 0;
                int start = pos;
                while (pos < length) {
                    if (sql.charAt(pos) == '/' && peek(1) == '*') {
                        depth++;
                        pos += 2;
                    } else if (sql.charAt(pos) == '*' && peek(1) == '/') {
                        depth--;
                        pos += 2;
                        if (depth == 0) {
                            break;
                        }
                    } else {
                        pos++;
                    }
                }
                if (depth != 0) {
                    unterminated = "unterminated comment starting at offset " + start;
                }
            } else {
                return;
            }
        }
    }

    private char peek(int ahead) {
        int i = pos + ahead;
        return i < length ? sql.charAt(i) : '\0';
    }

    private Token next() {
        int start = pos;
        char c = sql.charAt(pos);
        char n1 = peek(1);

        // String constants with a prefix: E'..', B'..', X'..', N'..', U&'..'; U&".." identifiers.
        if ((c == 'e' || c == 'E') && n1 == '\'') {
            pos++;
            quoted('\'', true);
            return make(Token.Kind.STRING, start);
        }
        if ((c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && n1 == '\'') {
            pos++;
            quoted('\'', false);
            return make(Token.Kind.STRING, start);
        }
        if ((c == 'u' || c == 'U') && n1 == '&' && (peek(2) == '\'' || peek(2) == '"')) {
            char q = peek(2);
            pos += 2;
            quoted(q, false);
            return make(q == '\'' ? Token.Kind.STRING : Token.Kind.QUOTED_IDENTIFIER, start);
        }
        if (c == '\'') {
            quoted('\'', false);
            return make(Token.Kind.STRING, start);
        }
        if (c == '"') {
            quoted('"', false);
            return make(Token.Kind.QUOTED_IDENTIFIER, start);
        }
        if (c == '$') {
            if (Character.isDigit(n1)) {
                pos++;
                while (pos < length && Character.isDigit(sql.charAt(pos))) {
                    pos++;
                }
                return make(Token.Kind.POSITIONAL_PARAMETER, start);
            }
            int tagEnd = dollarTagEnd(pos);
            if (tagEnd > 0) {
                String tag = sql.substring(pos, tagEnd);
                int close = sql.indexOf(tag, tagEnd);
                if (close < 0) {
                    unterminated = "unterminated dollar-quoted string starting at offset " + start;
                    pos = length;
                } else {
                    pos = close + tag.length();
                }
                return make(Token.Kind.STRING, start);
            }
        }
        if (isIdentStart(c)) {
            pos++;
            while (pos < length && isIdentPart(sql.charAt(pos))) {
                pos++;
            }
            return make(Token.Kind.WORD, start);
        }
        if (Character.isDigit(c) || (c == '.' && Character.isDigit(n1))) {
            number();
            return make(Token.Kind.NUMBER, start);
        }
        if (c == '?') {
            if (n1 == '?') {
                // pgjdbc: "??" is an escaped "?" operator, sent to the server as a single "?".
                pos += 2;
                return make(Token.Kind.SYMBOL, start);
            }
            pos++;
            while (pos < length && Character.isDigit(sql.charAt(pos))) {
                pos++;
            }
            return make(Token.Kind.PARAMETER, start);
        }
        if (isOperatorChar(c)) {
            pos++;
            while (pos < length && isOperatorChar(sql.charAt(pos))
                    && !(sql.charAt(pos) == '-' && peek(1) == '-')
                    && !(sql.charAt(pos) == '/' && peek(1) == '*')) {
                pos++;
            }
            pos = start + operatorLength(start, pos - start);
            return make(Token.Kind.SYMBOL, start);
        }
        if (c == ':' && n1 == ':') {
            pos += 2;
            return make(Token.Kind.SYMBOL, start);
        }
        pos++;
        return make(Token.Kind.SYMBOL, start);
    }

    private Token make(Token.Kind kind, int start) {
        return new Token(kind, sql.substring(start, pos), start, pos);
    }

    /**
     * PostgreSQL's rule for where an operator ends (scan.l): a multi-character operator cannot end in
     * {@code +} or {@code -} unless it also holds one of {@code ~ ! @ # % ^ & | ` ?}, so {@code a=-3} is
     * {@code a}, {@code =}, {@code -}, {@code 3}. Without it the fidelity check saw {@code =-} in the
     * original and {@code = -} in JSqlParser's printout, and refused a statement it could fence.
     */
    private int operatorLength(int start, int length) {
        if (length < 2) {
            return length;
        }
        char last = sql.charAt(start + length - 1);
        if (last != '+' && last != '-') {
            return length;
        }
        for (int i = start; i < start + length - 1; i++) {
            if ("~!@#%^&|`?".indexOf(sql.charAt(i)) >= 0) {
                return length;
            }
        }
        int n = length;
        while (n > 1 && (sql.charAt(start + n - 1) == '+' || sql.charAt(start + n - 1) == '-')) {
            n--;
        }
        return n;
    }

    /** Consumes a quoted run starting at the opening quote; doubled quotes escape it. */
    private void quoted(char quote, boolean backslashEscapes) {
        int start = pos;
        pos++;
        while (pos < length) {
            char c = sql.charAt(pos);
            if (backslashEscapes && c == '\\') {
                pos += 2;
                continue;
            }
            if (c == quote) {
                if (peek(1) == quote) {
                    pos += 2;
                    continue;
                }
                pos++;
                return;
            }
            pos++;
        }
        pos = length;
        unterminated = "unterminated quoted text starting at offset " + start;
    }

    private void number() {
        while (pos < length && (Character.isDigit(sql.charAt(pos)) || sql.charAt(pos) == '_')) {
            pos++;
        }
        if (pos < length && sql.charAt(pos) == '.' && peek(1) != '.') {
            pos++;
            while (pos < length && Character.isDigit(sql.charAt(pos))) {
                pos++;
            }
        }
        if (pos < length && (sql.charAt(pos) == 'e' || sql.charAt(pos) == 'E')) {
            int save = pos;
            pos++;
            if (pos < length && (sql.charAt(pos) == '+' || sql.charAt(pos) == '-')) {
                pos++;
            }
            if (pos < length && Character.isDigit(sql.charAt(pos))) {
                while (pos < length && Character.isDigit(sql.charAt(pos))) {
                    pos++;
                }
            } else {
                pos = save;
            }
        }
    }

    /** End (exclusive) of a {@code $tag$} opening at {@code at}, or -1 when it is not one. */
    private int dollarTagEnd(int at) {
        int i = at + 1;
        while (i < length && sql.charAt(i) != '$') {
            char c = sql.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_') || (i == at + 1 && Character.isDigit(c))) {
                return -1;
            }
            i++;
        }
        return i < length ? i + 1 : -1;
    }

    static boolean isIdentStart(char c) {
        return Character.isLetter(c) || c == '_' || c > 127;
    }

    static boolean isIdentPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c > 127;
    }

    private static boolean isOperatorChar(char c) {
        return "+-*/<>=~!@#%^&|`".indexOf(c) >= 0;
    }
}
