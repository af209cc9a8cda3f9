package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.parser.CCJSqlParserTokenManager;
import net.sf.jsqlparser.parser.SimpleCharStream;
import net.sf.jsqlparser.parser.StringProvider;
import org.jspecify.annotations.Nullable;

/**
 * Checks that JSqlParser's own token manager cuts a text where PostgreSQL does. JSqlParser builds its tree
 * from its tokens and fenced hangs the guard between them; where the two lexers disagree (a tagged dollar
 * quote JSqlParser reads as identifiers, an {@code E''} escape, a nested comment, {@code !~~}), the guard
 * lands inside what PostgreSQL reads as a string or a comment. So every JSqlParser token must be exactly one
 * PostgreSQL token, with two allowances that change no character's meaning: a JSqlParser token may span
 * several PostgreSQL tokens separated only by whitespace ({@code ORDER BY} as one keyword), and fenced's
 * numbered placeholder {@code ?3} is read as {@code ?} and {@code 3}.
 */
final class ParserLexing {

    private static final ThreadLocal<CCJSqlParserTokenManager> MANAGER = ThreadLocal.withInitial(
            () -> new CCJSqlParserTokenManager(new SimpleCharStream(new StringProvider(""), 1, 1, 16)));

    private ParserLexing() {}

    /** Null when the two lexers agree on {@code text}; otherwise where and how they differ. */
    static @Nullable String disagreement(String text, List<Token> postgres) {
        List<String> images = new ArrayList<>();
        try {
            // Sized to the text (the default buffer is 4,096 characters plus two int arrays of that length), and the
            // token manager reused per thread: a new one allocates its state tables, ~40 KB, twice per new statement.
            SimpleCharStream stream = new SimpleCharStream(new StringProvider(text), 1, 1, text.length() + 16);
            CCJSqlParserTokenManager manager = MANAGER.get();
            manager.ReInit(stream);
            for (net.sf.jsqlparser.parser.Token t = manager.getNextToken(); t.kind != 0; t = manager.getNextToken()) {
                images.add(t.image);
            }
        } catch (RuntimeException e) { // TokenMgrException: a character JSqlParser cannot lex {
            return "the SQL parser cannot read the text as PostgreSQL does (" + e.getMessage() + ")";
        }
        int i = 0;
        for (int j = 0; j < images.size(); j++) {
            String image = images.get(j);
            if (i >= postgres.size()) {
                return differs(image, "the end of the text");
            }
            Token p = postgres.get(i);
            if (image.equals(p.text())) {
                i++;
            } else if (p.kind() == Token.Kind.PARAMETER
                    && image.equals("?")
                    && j + 1 < images.size()
                    && p.text().equals("?" + images.get(j + 1))) {
                i++;
                j++;
            } else {
                int k = spanning(text, postgres, i, image);
                if (k < 0) {
                    return differs(image, "`" + p.text() + "` at offset " + p.start());
                }
                i = k + 1;
            }
        }
        return i == postgres.size()
                ? null
                : differs("the end of the text", "`" + postgres.get(i).text() + "`");
    }

    /** The last of the PostgreSQL tokens from {@code i} that, with only whitespace between, make up {@code image}. */
    private static int spanning(String text, List<Token> postgres, int i, String image) {
        int start = postgres.get(i).start();
        for (int k = i + 1; k < postgres.size(); k++) {
            Token prev = postgres.get(k - 1);
            Token t = postgres.get(k);
            for (int c = prev.end(); c < t.start(); c++) {
                if (!SqlLexer.isSpace(text.charAt(c))) {
                    return -1;
                }
            }
            int length = t.end() - start;
            if (length > image.length()) {
                return -1;
            }
            if (length == image.length()) {
                return text.regionMatches(start, image, 0, image.length()) ? k : -1;
            }
        }
        return -1;
    }

    private static String differs(String parser, String postgres) {
        return "the SQL parser reads the text differently from PostgreSQL (it reads `" + parser
                + "` where PostgreSQL reads " + postgres + ")";
    }
}
