package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Every fenced statement of PostgreSQL's regression DML, lexed exactly as PostgreSQL lexes it (issue 16, item 1):
 * the user's tokens, every one, in order, plus only what fenced adds, with as many parameters as the plan binds
 * and at least one token parameter per guarded write. Checked from the outside, on the plan's text, against the
 * original text, not with the rewriter's own intermediate texts.
 */
class CorpusLexingTest {

    @Test
    void everyFencedCorpusStatementIsTheUsersTokensPlusFencedsOwn() throws SqlLexer.LexException {
        List<Corpus.Record> records = Corpus.load();
        // with CorpusTest's model catalog, so the column-less INSERTs, MERGEs and tombstoning DELETEs are checked too
        List<ProtectedTable> tables = Corpus.writtenTables(records);
        SqlRewriter rewriter = new SqlRewriter(
                FencingTargets.modelled(
                        tables,
                        java.util.Map.of(),
                        java.util.Set.of(),
                        Corpus.modelShapes(tables),
                        TableName.parse("fenced_tombstone")),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(5));
        int fenced = 0;
        List<String> problems = new ArrayList<>();
        for (Corpus.Record r : records) {
            if (!(rewriter.plan(r.sql()) instanceof RewritePlan.Fenced plan)) {
                continue;
            }
            fenced++;
            List<Token> user = SqlLexer.tokenizeStrict(r.sql());
            List<Token> sent = SqlLexer.tokenizeStrict(plan.sql());
            String lost = firstLost(user, sent);
            long parameters =
                    sent.stream().filter(t -> t.kind() == Token.Kind.PARAMETER).count();
            if (lost != null) {
                problems.add(r.number() + ": loses " + lost + ": " + plan.sql());
            } else if (parameters != plan.delegateParameterCount()) {
                problems.add(r.number() + ": " + parameters + " parameters lexed, " + plan.delegateParameterCount()
                        + " bound: " + plan.sql());
            } else if (SentText.jdbcDisagreement(plan.sql(), (int) parameters) != null) {
                problems.add(r.number() + ": " + SentText.jdbcDisagreement(plan.sql(), (int) parameters));
            }
        }
        System.out.println("corpus lexing: " + fenced + " fenced statements checked, " + problems.size() + " problems");
        assertTrue(fenced > 0);
        assertEquals(List.of(), problems);
    }

    /**
     * The first user token missing from {@code sent} in order (words compare case-insensitively; {@code AS},
     * {@code ;} and the {@code DEFAULT} of {@code DEFAULT VALUES} may go, as the fidelity check allows).
     */
    private static String firstLost(List<Token> user, List<Token> sent) {
        int j = 0;
        for (int i = 0; i < user.size(); i++) {
            Token t = user.get(i);
            if (t.isWord("AS")
                    || t.isSymbol(";")
                    || (t.isWord("DEFAULT")
                            && i + 1 < user.size()
                            && user.get(i + 1).isWord("VALUES"))) {
                continue;
            }
            while (j < sent.size() && !same(t, sent.get(j))) {
                j++;
            }
            if (j++ >= sent.size()) {
                return "`" + t.text() + "` at offset " + t.start();
            }
        }
        return null;
    }

    private static boolean same(Token a, Token b) {
        return a.kind() == b.kind()
                && (a.kind() == Token.Kind.WORD
                        ? a.text().toLowerCase(Locale.ROOT).equals(b.text().toLowerCase(Locale.ROOT))
                        : a.text().equals(b.text()));
    }
}
