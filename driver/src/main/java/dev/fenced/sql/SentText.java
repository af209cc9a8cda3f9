package dev.fenced.sql;

import java.sql.SQLException;
import java.util.List;
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

    private SentText() {
    }

    /**
     * Null when {@code printed} (tokens of the fenced text) keeps every token of {@code roundTrip} (the unfenced
     * text) in order; otherwise the first user token it lost. Whatever JSqlParser printed around fenced's
     * fragments, a user token swallowed into a string or comment, or merged with a neighbour, is missing here.
     */
    static String lostUserToken(List<Token> roundTrip, List<Token> printed) {
        int j = 0;
        for (int i = 0; i < roundTrip.size(); i++) {
            Token t = roundTrip.get(i);
            if (t.isWord("DEFAULT") && i + 1 < roundTrip.size() && roundTrip.get(i + 1).isWord("VALUES")) {
                continue; // INSERT ... DEFAULT VALUES becomes (<fence column>) VALUES (<token>): the other columns still default
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

    private static boolean same(Token a, Token b) {
        return a.kind() == b.kind() && a.text().equals(b.text());
    }

    /**
     * Null when pgjdbc, given {@code sql} to prepare, binds exactly {@code parameters} placeholders and each
     * {@code $n} it writes is a parameter to PostgreSQL; otherwise the difference.
     */
    static String jdbcDisagreement(String sql, int parameters) {
        try {
            if (!Parser.replaceProcessing(sql, true, true).equals(sql)) {
                return "JDBC escape syntax ({...}) in the fenced text";
            }
            int bound = 0;
            for (NativeQuery q : Parser.parseJdbcSql(sql, true, true, true, false, false)) {
                List<Token> server = SqlLexer.tokenizeStrict(q.nativeSql, true, SqlLexer.Mode.SERVER);
                int k = 0;
                for (Token t : server) {
                    if (t.kind() == Token.Kind.POSITIONAL_PARAMETER) {
                        if (k >= q.bindPositions.length || t.start() != q.bindPositions[k]) {
                            return "pgjdbc and PostgreSQL read the parameters of the fenced text differently";
                        }
                        k++;
                    }
                }
                if (k != q.bindPositions.length) {
                    return "pgjdbc and PostgreSQL read the parameters of the fenced text differently";
                }
                bound += k;
            }
            return bound == parameters ? null
                    : "pgjdbc finds " + bound + " parameters in the fenced text where fenced binds " + parameters;
        } catch (SQLException | SqlLexer.LexException e) {
            return "the fenced text cannot be read as PostgreSQL reads it (" + e.getMessage() + ")";
        }
    }
}
