package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.size.LongRun;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;

/**
 * The checks a never-seen tombstone DELETE's text passes do less work since issue 26, and must answer as they did
 * for every text: pgjdbc's reading with standard_conforming_strings off is done only for a text with a backslash
 * ({@link SentText#jdbcDisagreement}), and the fenced text's tokens are compared with the user's and the fragments'
 * in place rather than with a list merged first ({@link SkeletonFencer#sameTokens}). Each is compared here with the
 * check as it was written before, on random texts made of the pieces it turns on.
 */
class ColdDeleteShortcutsTest {

    private static final List<String> PIECES = List.of(
            "'",
            "''",
            "\\",
            "\\'",
            "E'",
            "e'",
            "N'",
            "U&'",
            "u&\"",
            "\"",
            "$$",
            "$a$",
            "--",
            "\n",
            "/*",
            "*/",
            " ",
            "x",
            "1",
            "?",
            "? ",
            "$1",
            "?::",
            "(",
            ")",
            ";",
            "{fn x()}",
            "{d '2020-01-01'}",
            "{",
            "}",
            "b'",
            "::");

    private static final int TEXTS = LongRun.cases(15_000, 60_000);

    private static String randomText(Random random, int pieces) {
        StringBuilder b = new StringBuilder();
        int n = 1 + random.nextInt(pieces);
        for (int i = 0; i < n; i++) {
            b.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        return b.toString();
    }

    /** pgjdbc's reading of {@code sql} with the setting as given, compared as before (both settings, always). */
    private static @Nullable String jdbcOnePass(String sql, int parameters, boolean standardConformingStrings) {
        try {
            if (!Parser.replaceProcessing(sql, true, standardConformingStrings).equals(sql)) {
                return "JDBC escape syntax ({...}) in the fenced text";
            }
            int bound = 0;
            for (NativeQuery q : Parser.parseJdbcSql(sql, standardConformingStrings, true, true, false, false)) {
                int[] server;
                try {
                    server = SqlLexer.positionalParameterStarts(q.nativeSql, standardConformingStrings);
                } catch (SqlLexer.LexException e) {
                    if (!standardConformingStrings && e.everyVersionRejects()) {
                        return null;
                    }
                    throw e;
                }
                if (!Arrays.equals(server, q.bindPositions)) {
                    return "pgjdbc and PostgreSQL read the parameters of the fenced text differently";
                }
                bound += server.length;
            }
            return bound == parameters
                    ? null
                    : "pgjdbc finds " + bound + " parameters in the fenced text where fenced binds " + parameters;
        } catch (SQLException | SqlLexer.LexException e) {
            return "the fenced text cannot be read as PostgreSQL reads it (" + e.getMessage() + ")";
        }
    }

    @Test
    void pgjdbcIsReadASecondTimeExactlyWhenTheSecondReadingCouldDisagree() {
        Random random = new Random(2626);
        int offOnly = 0; // the first reading agreed, the second did not: the shortcut may never skip these
        int skipped = 0;
        for (int i = 0; i < TEXTS; i++) {
            String sql = randomText(random, 14);
            int parameters = random.nextInt(3);
            String on = jdbcOnePass(sql, parameters, true);
            String full = on != null ? on : jdbcOnePass(sql, parameters, false);
            assertEquals(full, SentText.jdbcDisagreement(sql, parameters), () -> "pgjdbc's reading of " + sql);
            offOnly += on == null && full != null ? 1 : 0;
            skipped += on == null && sql.indexOf('\\') < 0 ? 1 : 0;
        }
        assertTrue(
                offOnly > TEXTS / 1_200 && skipped > TEXTS / 60,
                "read differently only with the setting off " + offOnly + ", second reading skipped " + skipped);
    }

    /** The comparison as it was: the user's tokens with the fragments' merged into one list, then compared. */
    private static @Nullable String mergedFirst(
            List<Token> user,
            int offset,
            NavigableMap<Integer, SkeletonFencer.Fragment> fragments,
            List<Token> printed) {
        List<Token> expected = new ArrayList<>(user);
        for (Map.Entry<Integer, SkeletonFencer.Fragment> at :
                fragments.descendingMap().entrySet()) {
            List<Token> tokens = new ArrayList<>();
            at.getValue().tokens().forEach(tokens::addAll);
            expected.addAll(offset + at.getKey(), tokens);
        }
        if (expected.size() != printed.size()) {
            return "the fenced text does not lex as the statement with fenced's fragments";
        }
        for (int i = 0; i < expected.size(); i++) {
            if (expected.get(i).kind() != printed.get(i).kind()
                    || !expected.get(i).text().equals(printed.get(i).text())) {
                return "the fenced text does not lex as the statement with fenced's fragments";
            }
        }
        return null;
    }

    private static final List<String> FRAGMENTS =
            List.of(" AND x", "(", ") AND CASE WHEN (", ", \"fence\"", ", ?2", " WHERE true", "''", "x");

    @Test
    void theFragmentsAreComparedInPlaceAsInTheMergedList() {
        Random random = new Random(2627);
        int agreeing = 0;
        int differing = 0;
        for (int i = 0; i < TEXTS / 4; i++) {
            List<Token> user = SqlLexer.tokenize("p q " + randomText(random, 8));
            int offset = random.nextInt(3);
            int statement = user.size() - offset;
            TreeMap<Integer, SkeletonFencer.Fragment> fragments = new TreeMap<>();
            int count = random.nextInt(4);
            for (int f = 0; f < count; f++) {
                int at = random.nextInt(statement + 1); // before a statement token, or after the last
                fragments.put(
                        at,
                        random.nextBoolean()
                                ? SkeletonFencer.Fragment.shared(FRAGMENTS.get(random.nextInt(FRAGMENTS.size())))
                                : SkeletonFencer.Fragment.repeating(
                                        new String[] {"", " AND (", ") OR x"},
                                        "x = 1",
                                        SqlLexer.tokenize(random.nextBoolean() ? "x = 1" : "x = 2")));
            }
            // what the fenced text lexes as: the merged tokens, or those changed in one place
            List<Token> printed = new ArrayList<>(user);
            for (Map.Entry<Integer, SkeletonFencer.Fragment> at :
                    fragments.descendingMap().entrySet()) {
                List<Token> tokens = new ArrayList<>();
                for (String piece : at.getValue().pieces()) {
                    tokens.addAll(SqlLexer.tokenize(piece));
                }
                printed.addAll(offset + at.getKey(), tokens);
            }
            mutate(random, printed);
            String before = mergedFirst(user, offset, fragments, printed);
            assertEquals(
                    before,
                    SkeletonFencer.sameTokens(user, offset, fragments, printed),
                    () -> user + " " + fragments + " " + printed);
            agreeing += before == null ? 1 : 0;
            differing += before == null ? 0 : 1;
        }
        assertTrue(
                agreeing > TEXTS / 60 && differing > TEXTS / 60, "agreeing " + agreeing + ", differing " + differing);
    }

    /** Leaves the tokens as they are half the time; else drops, repeats, swaps or replaces one. */
    private static void mutate(Random random, List<Token> tokens) {
        if (tokens.isEmpty() || random.nextBoolean()) {
            return;
        }
        int i = random.nextInt(tokens.size());
        switch (random.nextInt(4)) {
            case 0 -> tokens.remove(i);
            case 1 -> tokens.add(i, tokens.get(i));
            case 2 -> tokens.set(i, tokens.set(random.nextInt(tokens.size()), tokens.get(i)));
            default ->
                tokens.set(
                        i, SqlLexer.tokenize(random.nextBoolean() ? "y" : "'y'").get(0));
        }
    }
}
