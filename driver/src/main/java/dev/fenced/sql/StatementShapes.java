package dev.fenced.sql;

import java.util.List;

/**
 * Statement texts as tools find them outside the driver, made ready for {@link SqlRewriter}: PostgreSQL's
 * {@code pg_stat_statements} and its statement log show server-side parameters ({@code $1}; constants are
 * normalised to them too) where the application wrote JDBC's {@code ?}, and they show what fenced sent, so a
 * statement fenced already rewrote must be told from one a writer sent without fencing.
 */
public final class StatementShapes {

    private StatementShapes() {
    }

    /**
     * The text with every server-side parameter ({@code $1}) outside literals and comments written as
     * {@code ?}: the shape the application sent through JDBC, which the rewriter plans (it refuses {@code $n}).
     */
    public static String withJdbcParameters(String sql) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        StringBuilder b = new StringBuilder(sql.length());
        int at = 0;
        for (Token t : tokens) {
            if (t.kind() == Token.Kind.POSITIONAL_PARAMETER) {
                b.append(sql, at, t.start()).append('?');
                at = t.end();
            }
        }
        return at == 0 ? sql : b.append(sql, at, sql.length()).toString();
    }

    /**
     * True when the text carries the token placeholder fenced adds ({@code CAST(? AS bigint)}, or its
     * {@code $n}, literal or NULL form; {@code THEN CAST(? AS text)} in an INSERT without a column list): read with a refusal for setting the fence column or for a name
     * fenced reserves, it marks a statement fenced itself sent.
     */
    public static boolean carriesFencedToken(String sql) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        for (int i = 0; i + 5 < tokens.size(); i++) {
            if (castOfToken(tokens, i, "bigint")
                    // an INSERT without a column list checks the column order first: THEN CAST(? AS text) ELSE ...
                    || i > 0 && tokens.get(i - 1).isWord("THEN") && castOfToken(tokens, i, "text")) {
                return true;
            }
        }
        return false;
    }

    private static boolean castOfToken(List<Token> tokens, int i, String type) {
        return tokens.get(i).isWord("CAST") && tokens.get(i + 1).isSymbol("(") && isTokenValue(tokens.get(i + 2))
                && tokens.get(i + 3).isWord("AS") && tokens.get(i + 4).isWord(type) && tokens.get(i + 5).isSymbol(")");
    }

    private static boolean isTokenValue(Token t) {
        return t.kind() == Token.Kind.PARAMETER || t.kind() == Token.Kind.POSITIONAL_PARAMETER
                || t.kind() == Token.Kind.NUMBER || t.isWord("NULL");
    }

    /** True when PostgreSQL's lexer reads the text to its end (no unterminated string, comment or identifier). */
    public static boolean lexes(String sql) {
        try {
            SqlLexer.tokenizeStrict(sql);
            return true;
        } catch (SqlLexer.LexException e) {
            return false;
        }
    }

    /** The first word of the text (its command keyword), or null when it starts with something else. */
    public static String firstWord(String sql) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        for (Token t : tokens) {
            if (t.isSymbol("(")) {
                continue; // (SELECT ...) UNION ...
            }
            return t.kind() == Token.Kind.WORD ? t.text() : null;
        }
        return null;
    }
}
