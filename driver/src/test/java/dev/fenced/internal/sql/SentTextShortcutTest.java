package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link SentText#dependsOnConformingStrings} does not lex a text without a backslash a second time (with
 * standard_conforming_strings off): its answer must be the one the second lex gives, for every text lexed strictly.
 * Checked on random texts made of the pieces the setting turns on (quotes of every kind, backslashes, comments,
 * dollar quotes, U&amp; strings and names), each compared with the check done in full here.
 */
class SentTextShortcutTest {

    private static final List<String> PIECES = List.of(
            "'", "''", "\\", "\\'", "E'", "e'", "N'", "U&'", "u&\"", "\"", "$$", "$a$", "--", "\n", "/*", "*/", " ",
            "x", "1", "?", "(", ")", ";", "&", "b'", "X'", "::", "+");

    private static final int TEXTS = 60_000;

    private static String randomText(Random random) {
        StringBuilder b = new StringBuilder();
        int n = 1 + random.nextInt(12);
        for (int i = 0; i < n; i++) {
            b.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        return b.toString();
    }

    /** The check as it was before the shortcut: always lexed a second time, with the setting off. */
    private static @Nullable String dependsInFull(String sql, List<Token> on) {
        List<Token> off;
        try {
            off = SqlLexer.tokenizeStrict(sql, false, SqlLexer.Mode.JDBC);
        } catch (SqlLexer.LexException e) {
            return e.everyVersionRejects() ? null : "differs";
        }
        if (off.size() != on.size()) {
            return "differs";
        }
        for (int i = 0; i < on.size(); i++) {
            if (on.get(i).start() != off.get(i).start()
                    || on.get(i).end() != off.get(i).end()) {
                return "differs";
            }
        }
        return null;
    }

    @Test
    void aTextLexedStrictlyDependsOnTheSettingExactlyWhenLexingItAgainSaysSo() {
        Random random = new Random(26);
        int checked = 0;
        int depending = 0;
        for (int i = 0; i < TEXTS; i++) {
            String sql = randomText(random);
            List<Token> on;
            try {
                on = SqlLexer.tokenizeStrict(sql);
            } catch (SqlLexer.LexException e) {
                continue; // every caller has lexed the text strictly first: such a text is refused before
            }
            String full = dependsInFull(sql, on);
            String quick = SentText.dependsOnConformingStrings(sql, on);
            assertEquals(
                    full == null, quick == null, () -> "standard_conforming_strings answered otherwise for " + sql);
            checked++;
            depending += full == null ? 0 : 1;
        }
        // both answers occur, or the comparison shows nothing
        assertTrue(checked > 10_000 && depending > 40, "checked " + checked + ", depending " + depending);
    }
}
