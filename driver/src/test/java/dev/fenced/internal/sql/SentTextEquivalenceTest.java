package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;

/**
 * {@link SentText}'s checks do less work than they did, and must answer as they did for every text: a text without
 * a backslash is not lexed a second time with standard_conforming_strings off ({@link
 * SentText#dependsOnConformingStrings}), and pgjdbc's reading is compared with the starts of the {@code $n} the
 * server reads ({@link SqlLexer#positionalParameterStarts}) rather than with a token for every word
 * ({@link SentText#jdbcDisagreement}). Checked on random texts made of the pieces both turn on (quotes of every kind,
 * backslashes, comments, dollar quotes and {@code $n}, {@code ?}, U&amp; strings and names), each compared with the
 * check done in full here, as it was written before.
 */
class SentTextEquivalenceTest {

    private static final List<String> PIECES = List.of(
            "'", "''", "\\", "\\'", "E'", "e'", "N'", "U&'", "u&\"", "\"", "$$", "$a$", "--", "\n", "/*", "*/", " ",
            "x", "1", "?", "$1", "$2x", "?::", "(", ")", ";", "&", "b'", "X'", "::", "+");

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
        assertTrue(checked > 10_000 && depending > 20, "checked " + checked + ", depending " + depending);
    }

    /** The comparison with pgjdbc as it was before: every token of the server's reading listed, then filtered. */
    private static @Nullable String jdbcInFull(String sql, int parameters, boolean standardConformingStrings) {
        try {
            if (!Parser.replaceProcessing(sql, true, standardConformingStrings).equals(sql)) {
                return "escape";
            }
            int bound = 0;
            for (NativeQuery q : Parser.parseJdbcSql(sql, standardConformingStrings, true, true, false, false)) {
                List<Token> server;
                try {
                    server = SqlLexer.tokenizeStrict(q.nativeSql, standardConformingStrings, SqlLexer.Mode.SERVER);
                } catch (SqlLexer.LexException e) {
                    if (!standardConformingStrings && e.everyVersionRejects()) {
                        return null;
                    }
                    throw e;
                }
                int k = 0;
                for (Token t : server) {
                    if (t.kind() == Token.Kind.POSITIONAL_PARAMETER) {
                        if (k >= q.bindPositions.length || t.start() != q.bindPositions[k]) {
                            return "differently";
                        }
                        k++;
                    }
                }
                if (k != q.bindPositions.length) {
                    return "differently";
                }
                bound += k;
            }
            return bound == parameters ? null : "count";
        } catch (SQLException | SqlLexer.LexException e) {
            return "unreadable";
        }
    }

    @Test
    void pgjdbcIsComparedWithTheServersParametersAsWhenEveryTokenWasListed() {
        Random random = new Random(26);
        int disagreeing = 0;
        int agreeing = 0;
        for (int i = 0; i < TEXTS; i++) {
            String sql = randomText(random);
            int parameters = random.nextInt(3);
            String full = jdbcInFull(sql, parameters, true);
            full = full != null ? full : jdbcInFull(sql, parameters, false);
            String now = SentText.jdbcDisagreement(sql, parameters);
            assertEquals(
                    full == null, now == null, () -> "pgjdbc's reading compared otherwise for " + sql + ": " + now);
            if (full == null) {
                agreeing++;
            } else if (full.equals("differently")) {
                disagreeing++;
            }
        }
        assertTrue(agreeing > 1_000 && disagreeing > 20, "agreeing " + agreeing + ", read differently " + disagreeing);
    }

    @Test
    void theServersParametersAreWhereItsTokensSayOrTheTextIsRefusedAlike() {
        Random random = new Random(27);
        int found = 0;
        for (int i = 0; i < TEXTS; i++) {
            String sql = randomText(random);
            for (boolean standardConformingStrings : new boolean[] {true, false}) {
                List<Integer> want = new java.util.ArrayList<>();
                String wantError = null;
                try {
                    for (Token t : SqlLexer.tokenizeStrict(sql, standardConformingStrings, SqlLexer.Mode.SERVER)) {
                        if (t.kind() == Token.Kind.POSITIONAL_PARAMETER) {
                            want.add(t.start());
                        }
                    }
                } catch (SqlLexer.LexException e) {
                    wantError = e.getMessage() + e.everyVersionRejects();
                }
                String gotError = null;
                List<Integer> got = List.of();
                try {
                    got = java.util.Arrays.stream(SqlLexer.positionalParameterStarts(sql, standardConformingStrings))
                            .boxed()
                            .toList();
                } catch (SqlLexer.LexException e) {
                    gotError = e.getMessage() + e.everyVersionRejects();
                }
                assertEquals(wantError, gotError, sql);
                if (wantError == null) {
                    assertEquals(want, got, sql);
                    found += want.size();
                }
            }
        }
        assertTrue(found > 1_000, "parameters found " + found);
    }
}
