package dev.fenced.sql;

import java.util.List;

/**
 * The shape of a statement, as the writer inventory groups it: PostgreSQL's tokens in order, with every
 * string and number constant replaced by {@code ?}, comments dropped and whitespace folded to one space.
 * {@code UPDATE totals SET amount = 5 WHERE id = 'x'} and {@code update totals set amount=7 where id='y'}
 * differ only in case; keywords and names are kept as written, so the shape still reads like the code that
 * sent it. Lexed by {@link SqlLexer}, the same lexer that decides what fenced sends.
 */
public final class SqlShape {

    private SqlShape() {
    }

    public static String of(String sql) {
        if (sql == null) {
            return "";
        }
        List<Token> tokens = SqlLexer.tokenize(sql);
        StringBuilder b = new StringBuilder(Math.min(sql.length(), 4096));
        Token previous = null;
        for (Token t : tokens) {
            String text = switch (t.kind()) {
                case STRING, NUMBER -> "?";
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
}
