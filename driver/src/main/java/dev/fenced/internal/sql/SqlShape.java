package dev.fenced.internal.sql;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a statement, one for every place fenced groups statements: the writer inventory (texts as the
 * application wrote them) and the command-line tool's {@code audit} (texts as PostgreSQL's
 * {@code pg_stat_statements} and statement log show them), so a writer the inventory names and the row
 * {@code audit} shows for the same statement read alike. PostgreSQL's tokens in order, with every string and
 * number constant and every server-side parameter ({@code $1}) replaced by {@code ?}, comments dropped and
 * whitespace folded to one space. {@code UPDATE totals SET amount = 5 WHERE id = 'x'},
 * {@code UPDATE totals SET amount = $1 WHERE id = $2} and {@code update totals set amount=7 where id='y'}
 * differ only in case and spacing; keywords and names are kept as written, so the shape still reads like the
 * code that sent it. Lexed by {@link SqlLexer}, the same lexer that decides what fenced sends.
 * <p>
 * Also what the tool needs to read statements found outside the driver: {@link #withJdbcParameters} for the
 * text it plans (constants kept: a refusal can depend on them), and how to tell what fenced itself sent.
 */
public final class SqlShape {

    private SqlShape() {}

    public static String of(@Nullable String sql) {
        if (sql == null) {
            return "";
        }
        List<Token> tokens = SqlLexer.tokenize(sql);
        StringBuilder b = new StringBuilder(Math.min(sql.length(), 4096));
        @Nullable Token previous = null;
        for (Token t : tokens) {
            String text = switch (t.kind()) {
                case STRING, NUMBER, POSITIONAL_PARAMETER -> "?";
                default -> t.text();
            };
            if (previous != null && spaceBetween(previous, t)) {
                b.append(' ');
            }
            b.append(text);
            previous = t;
        }
        return b.toString();
    }

    /** One space where the source had any gap, and none where it had none: {@code a=1} stays {@code a=?}. */
    private static boolean spaceBetween(Token previous, Token next) {
        return next.start() > previous.end();
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
     * {@code $n}, literal or NULL form; {@code THEN CAST(? AS pg_catalog.text)} in an INSERT without a column list; an UPDATE
     * guard's failing branch {@code pg_size_bytes(pg_catalog.concat(...))}): read with a refusal for setting the fence column or for a name
     * fenced reserves, it marks a statement fenced itself sent.
     */
    public static boolean carriesFencedToken(String sql) {
        List<Token> tokens = SqlLexer.tokenize(sql);
        for (int i = 0; i + 5 < tokens.size(); i++) {
            if (castOfToken(tokens, i, "bigint")
                    // an INSERT without a column list checks the column order first: THEN CAST(? AS pg_catalog.text)
                    // ELSE ...
                    || i > 0 && tokens.get(i - 1).isWord("THEN") && castOfToken(tokens, i, "text")
                    // an UPDATE's guard binds its token bare; its failing branch is
                    // pg_size_bytes(pg_catalog.concat(...))
                    || staleMarkerConcat(tokens, i)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code pg_size_bytes(pg_catalog.concat(}: the start of the failing branch as fenced writes it (qualified, so
     * a user's function cannot stand in); its string constants may be {@code $n} in pg_stat_statements.
     */
    private static boolean staleMarkerConcat(List<Token> tokens, int i) {
        return tokens.get(i).isWord("pg_size_bytes")
                && tokens.get(i + 1).isSymbol("(")
                && tokens.get(i + 2).isWord("pg_catalog")
                && tokens.get(i + 3).isSymbol(".")
                && tokens.get(i + 4).isWord("concat")
                && tokens.get(i + 5).isSymbol("(");
    }

    /** {@code CAST(<token> AS <type>)}, the type bare or as {@code pg_catalog.<type>}. */
    private static boolean castOfToken(List<Token> tokens, int i, String type) {
        if (!(tokens.get(i).isWord("CAST")
                && tokens.get(i + 1).isSymbol("(")
                && isTokenValue(tokens.get(i + 2))
                && tokens.get(i + 3).isWord("AS"))) {
            return false;
        }
        int at = i + 4;
        if (tokens.get(at).isWord("pg_catalog")
                && at + 3 < tokens.size()
                && tokens.get(at + 1).isSymbol(".")) {
            at += 2;
        }
        return tokens.get(at).isWord(type) && tokens.get(at + 1).isSymbol(")");
    }

    private static boolean isTokenValue(Token t) {
        return t.kind() == Token.Kind.PARAMETER
                || t.kind() == Token.Kind.POSITIONAL_PARAMETER
                || t.kind() == Token.Kind.NUMBER
                || t.isWord("NULL");
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
    public static @Nullable String firstWord(String sql) {
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
