package dev.fenced.internal.sql;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;

/**
 * The last look at a fenced text before it becomes a plan: lexed exactly as PostgreSQL lexes it, it must be
 * the user's statement (as the fidelity check accepted it) with fenced's fragments added and nothing of the
 * user's lost or merged, and pgjdbc must find its placeholders exactly where PostgreSQL will see parameters.
 * pgjdbc has its own reader of quotes, comments and dollar tags; where it would put a {@code $n} inside what
 * the server reads as a literal or comment (or miss one), the bound token would not be where the guard is.
 */
final class SentText {

    private SentText() {}

    /**
     * Null when {@code printed} (tokens of the fenced text) keeps every token of {@code roundTrip} (the unfenced
     * text) in order; otherwise the first user token it lost. Whatever JSqlParser printed around fenced's
     * fragments, a user token swallowed into a string or comment, or merged with a neighbour, is missing here.
     */
    static @Nullable String lostUserToken(List<Token> roundTrip, List<Token> printed) {
        int j = 0;
        for (int i = 0; i < roundTrip.size(); i++) {
            Token t = roundTrip.get(i);
            if (t.isWord("DEFAULT")
                    && i + 1 < roundTrip.size()
                    && roundTrip.get(i + 1).isWord("VALUES")) {
                continue; // INSERT ... DEFAULT VALUES becomes (<fence column>) VALUES (<token>): the other columns
                // still default
            }
            while (j < printed.size() && !same(t, printed.get(j))) {
                j++;
            }
            if (j == printed.size()) {
                return "the fenced text loses `" + t.text() + "` of the statement as PostgreSQL reads it";
            }
            j++;
        }
        return null;
    }

    /**
     * Null when {@code sql} ({@code on}: its tokens, lexed strictly with the setting on, as every caller has) lexes
     * to the same tokens whether {@code standard_conforming_strings} is on or off;
     * otherwise why not. fenced keeps the setting on, but a change pipelined ahead of a statement (an earlier
     * entry of the same batch or text calling a function that sets it) is seen by the server before this text is
     * parsed and by fenced only afterwards; a text that reads the same either way cannot be moved by it.
     */
    static @Nullable String dependsOnConformingStrings(String sql, List<Token> on) {
        if (sql.indexOf('\\') < 0) {
            // the setting changes only what a backslash in a '...' string means, and makes a U&'' string an error
            // every version rejects (SqlLexer's only uses of it): without a backslash, a text `on` lexed strictly
            // lexes the same with it off, or not at all, so the second lex (a tenth of a tombstone DELETE's
            // allocation) could only agree
            return null;
        }
        List<Token> off;
        try {
            off = SqlLexer.tokenizeStrict(sql, false, SqlLexer.Mode.JDBC);
        } catch (SqlLexer.LexException e) {
            // with the setting off every PostgreSQL rejects the whole text (a U&'' string, an open quote)
            return e.everyVersionRejects() ? null : BACKSLASH;
        }
        if (off.size() != on.size()) {
            return BACKSLASH;
        }
        for (int i = 0; i < on.size(); i++) {
            if (on.get(i).start() != off.get(i).start()
                    || on.get(i).end() != off.get(i).end()) {
                return BACKSLASH;
            }
        }
        return null;
    }

    private static final String BACKSLASH = "a backslash in a '...' string, which PostgreSQL reads differently when"
            + " standard_conforming_strings is off; write the string as E'...' with the backslash doubled";

    private static boolean same(Token a, Token b) {
        return a.kind() == b.kind() && a.sameText(b);
    }

    /**
     * Null when pgjdbc, given {@code sql} to prepare, binds exactly {@code parameters} placeholders and each
     * {@code $n} it writes is a parameter to PostgreSQL; otherwise the difference.
     */
    static @Nullable String jdbcDisagreement(String sql, int parameters) {
        String on = jdbcDisagreement(sql, parameters, true);
        if (on != null || sql.indexOf('\\') < 0) {
            // pgjdbc's reader turns on the setting only where a '...' string holds a backslash
            // (Parser.parseSingleQuotes, its one use in replaceProcessing and parseJdbcSql), so without one it reads
            // the same text, the same $n, with it off; the server's reading of that text (SqlLexer) then gives the
            // same $n or is rejected by every version (a U&'' string), which this check accepts: the second reading
            // (a fifth of a tombstone DELETE's allocation) could only agree
            return on;
        }
        return jdbcDisagreement(sql, parameters, false);
    }

    private static @Nullable String jdbcDisagreement(String sql, int parameters, boolean standardConformingStrings) {
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
                        return null; // PostgreSQL would reject the text with the setting off: nothing could land
                    }
                    throw e;
                }
                // every $n the server reads is one pgjdbc bound there, and pgjdbc bound no other
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
}
