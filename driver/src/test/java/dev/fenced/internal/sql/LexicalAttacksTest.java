package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.RelativeUpdatePolicy;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lexical attacks, at the rewriter: each either comes out refused or fenced so that the sent text,
 * lexed as PostgreSQL lexes it, still carries every guard parameter. (Executed on PostgreSQL with a stale
 * token in integration-tests' {@code LexicalAttackTest}.)
 */
class LexicalAttacksTest {

    private final SqlRewriter rewriter = SqlRewriterTest.rewriter(RelativeUpdatePolicy.WARN);

    @ParameterizedTest
    @ValueSource(
            strings = {
                "UPDATE totals SET amount = $a$x WHERE y$a$",
                "UPDATE totals SET amount = $a$x WHERE y$a$ WHERE restaurant_id = ?",
                "INSERT INTO totals (restaurant_id, amount) VALUES (1, 2) ON CONFLICT (restaurant_id) DO UPDATE SET amount = $a$x WHERE y$a$",
                "UPDATE totals SET amount = E'\\' || '--' WHERE amount = '\nWHERE restaurant_id = 1 --'",
                "UPDATE totals SET amount = 100 - /* /* */ ( --*/\n10 - 1 /* /* */ ) --*/\nWHERE restaurant_id = 1",
                "UPDATE totals SET amount = 1 WHERE note !~~ 'x'",
                "UPDATE totals SET note = 'a'\n'b' WHERE restaurant_id = 1",
                "UPDATE totals SET note = U&'d\\0061t' UESCAPE '!' WHERE restaurant_id = 1",
                "DELETE FROM totals WHERE note = $q$ ' $q$ OR note = E'\\' OR restaurant_id = 1 --'",
            })
    void anAttackIsRefusedOrKeepsEveryGuardParameter(String sql) {
        RewritePlan plan = rewriter.plan(sql);
        assertTrue(plan instanceof RewritePlan.Protected, () -> sql + " -> " + plan);
        if (plan instanceof RewritePlan.Fenced fenced) {
            List<Token> sent = SqlLexer.tokenize(fenced.sql());
            long parameters =
                    sent.stream().filter(t -> t.kind() == Token.Kind.PARAMETER).count();
            assertEquals(fenced.delegateParameterCount(), parameters, plan::toString);
            assertTrue(fenced.tokenIndexes().length > 0, plan::toString);
            assertTrue(keepsInOrder(SqlLexer.tokenize(sql), sent), plan::toString);
        }
    }

    /**
     * Lexed with standard_conforming_strings off (as a server would if a function pipelined ahead of it turned the
     * setting off), the first quote pair runs to the next quote and the guard would sit in a string: refused,
     * whatever junk the random nonce makes of the rest.
     */
    @org.junit.jupiter.api.Test
    void aTextThatLexesOtherwiseWithStandardConformingStringsOffIsRefused() {
        RewritePlan plan = rewriter.plan("UPDATE totals SET note = '\\' WHERE restaurant_id = 1 OR note = ' -- '");
        RewritePlan.Refused refused = assertInstanceOf(RewritePlan.Refused.class, plan, plan::toString);
        assertTrue(refused.construct().contains("standard_conforming_strings"), plan::toString);
        assertEquals(
                null,
                SentText.dependsOnConformingStrings(
                        "SELECT ' 9c0d ' || ' 1x '", SqlLexer.tokenize("SELECT ' 9c0d ' || ' 1x '")));
        assertTrue(
                SentText.dependsOnConformingStrings(
                                "SELECT '\\' || ' 9c ' || '", SqlLexer.tokenize("SELECT '\\' || ' 9c ' || '"))
                        != null,
                "junk only some versions reject is not relied on");
    }

    /** Every token of {@code user} appears in {@code sent}, in order (fenced only adds). */
    private static boolean keepsInOrder(List<Token> user, List<Token> sent) {
        int j = 0;
        for (Token t : user) {
            while (j < sent.size()
                    && !(sent.get(j).kind() == t.kind() && sent.get(j).text().equalsIgnoreCase(t.text()))) {
                j++;
            }
            if (j++ >= sent.size()) {
                return false;
            }
        }
        return true;
    }
}
