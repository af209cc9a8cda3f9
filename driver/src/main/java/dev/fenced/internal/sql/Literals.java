package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The user's string constants, kept out of JSqlParser's way. PostgreSQL has string forms JSqlParser lexes
 * otherwise (tagged dollar quotes, {@code E''} escapes, continuation across a newline, {@code U&''}), and comments
 * it closes early (nested ones). So the parser is given the statement with every string, found by the
 * PostgreSQL-exact lexer, replaced by a placeholder {@code '#<n>'} and every comment by a space; once fenced, the
 * placeholders are put back as the user wrote them, byte for byte. JSqlParser never sees a user literal, so
 * what it thinks one contains cannot move a guard.
 */
final class Literals {

    private final List<String> originals = new ArrayList<>();

    /** The placeholder standing for {@code original} in the parser's text. */
    String placeholder(String original) {
        originals.add(original);
        return "'#" + (originals.size() - 1) + "'";
    }

    /**
     * {@code printed} with every placeholder replaced by its literal; null when that is not exactly the same
     * tokens with the literals in place (a literal that would merge with a neighbour, an unknown placeholder).
     */
    @Nullable
    String restore(String printed) {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenizeStrict(printed);
        } catch (SqlLexer.LexException e) {
            return null;
        }
        StringBuilder out = new StringBuilder(printed.length() + 64);
        List<String> expected = new ArrayList<>(tokens.size());
        int copied = 0;
        for (Token t : tokens) {
            String text = t.text();
            if (t.kind() == Token.Kind.STRING && text.startsWith("'#") && text.endsWith("'") && text.length() > 3) {
                int n;
                try {
                    n = Integer.parseInt(text.substring(2, text.length() - 1));
                } catch (NumberFormatException e) {
                    return null;
                }
                if (n < 0 || n >= originals.size()) {
                    return null;
                }
                text = originals.get(n);
                out.append(printed, copied, t.start()).append(text);
                copied = t.end();
            }
            expected.add(t.kind() + text);
        }
        out.append(printed, copied, printed.length());
        String restored = out.toString();
        try {
            List<Token> again = SqlLexer.tokenizeStrict(restored);
            if (again.size() != expected.size()) {
                return null;
            }
            for (int i = 0; i < again.size(); i++) {
                if (!expected.get(i).equals(again.get(i).kind() + again.get(i).text())) {
                    return null;
                }
            }
        } catch (SqlLexer.LexException e) {
            return null;
        }
        return restored;
    }
}
