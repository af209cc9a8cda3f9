package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A token compares its text in place, in the source, and cuts the text only when asked for: every in-place
 * comparison must answer what the same comparison of the cut text answered when a token held its text (the record
 * it was). Checked on every token of PostgreSQL's regression DML and of texts with non-ASCII words.
 */
class TokenTest {

    private static final List<String> WORDS = List.of(
            "UPDATE", "INSERT", "DELETE", "MERGE", "SET", "WHERE", "INSTEAD", "ON", "DO", "VALUES", "ARRAY", "ORDER",
            "LIMIT", "I", "KEY", "");
    private static final List<String> SYMBOLS = List.of("(", ")", "[", "]", ",", ".", ";", "=", "::", "<>", "?", "??");

    /** Texts whose words fold differently by character (equalsIgnoreCase) and by string (toUpperCase). */
    private static final List<String> NON_ASCII = List.of(
            "ınsert INTO t VALUES (1)", // dotless i: upper-cases to I either way
            "CREATE RULE r AS ON UPDATE TO t DO inﬆead UPDATE t SET v = 1", // ligature st: STRING upper-cases to ST
            "UPDATE t SET \"ﬆ\" = 1, ß = 'ß' WHERE ﬁ = 2 RETURNING ﬀ",
            "U&\"d\\0061t\" u&\"x\" \"U&\" U&'a'",
            // the Kelvin sign and the long s match K and S ignoring case, as equalsIgnoreCase compares
            "UPDATE t ſet \u212Aey = 1, ſET = 2");

    private static List<List<Token>> texts() {
        List<List<Token>> out = new ArrayList<>();
        for (Corpus.Record r : Corpus.load()) {
            out.add(SqlLexer.tokenize(r.sql()));
        }
        for (String sql : NON_ASCII) {
            out.add(SqlLexer.tokenize(sql));
        }
        return out;
    }

    @Test
    void inPlaceComparisonsAnswerAsTheTextDoes() {
        int tokens = 0;
        for (List<Token> list : texts()) {
            Token previous = null;
            for (Token t : list) {
                tokens++;
                String text = t.text();
                assertEquals(text, t.text(), "cut once, the same after");
                for (String w : WORDS) {
                    assertEquals(t.kind() == Token.Kind.WORD && text.equalsIgnoreCase(w), t.isWord(w), t + " " + w);
                }
                for (String s : SYMBOLS) {
                    assertEquals(t.kind() == Token.Kind.SYMBOL && text.equals(s), t.isSymbol(s), t + " " + s);
                }
                assertEquals(
                        t.kind() == Token.Kind.QUOTED_IDENTIFIER && text.regionMatches(true, 0, "U&", 0, 2),
                        t.isUnicodeEscapedName(),
                        t.toString());
                assertEquals(text.chars().allMatch(c -> c < 0x80), t.isAscii(), t.toString());
                if (previous != null) {
                    assertEquals(previous.text().equals(text), previous.sameText(t), previous + " " + t);
                    assertNotEquals(previous, t, "different places");
                }
                previous = t;
            }
        }
        assertTrue(tokens > 30_000, "the corpus was read: " + tokens);
    }

    @Test
    void equalityIsKindTextAndPlace() {
        Token a = SqlLexer.tokenize("x UPDATE").get(1);
        Token b = SqlLexer.tokenize("y UPDATE").get(1);
        Token c = SqlLexer.tokenize("y update").get(1);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, c);
        assertNotEquals(a, SqlLexer.tokenize("xx UPDATE").get(1));
    }

    /** The keyword scan compares in place, and upper-cases a non-ASCII word as it did before. */
    @Test
    void dmlKeywordsAreFoundAsByTheUpperCasedText() {
        Set<String> dml = Set.of("INSERT", "UPDATE", "DELETE", "MERGE");
        Set<String> clause = Set.of("FOR", "KEY", "DO", "ON", "OF", "OR", "BEFORE", "AFTER", "THEN", "INSTEAD");
        for (List<Token> list : texts()) {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Token t = list.get(i);
                if (t.kind() != Token.Kind.WORD || !dml.contains(t.text().toUpperCase(Locale.ROOT))) {
                    continue;
                }
                Token prev = i > 0 ? list.get(i - 1) : null;
                if (prev != null
                        && (prev.isSymbol(".")
                                || prev.isSymbol(",")
                                || (prev.kind() == Token.Kind.WORD
                                        && clause.contains(prev.text().toUpperCase(Locale.ROOT))))) {
                    continue;
                }
                if (i + 1 < list.size() && list.get(i + 1).isSymbol(".")) {
                    continue;
                }
                expected.add(i);
            }
            assertEquals(expected, StatementClassifier.dmlKeywordIndexes(list), list.toString());
        }
        // the ligature case, spelt out: INSTEAD (as upper-cased) before the second UPDATE makes it a clause
        assertEquals(
                List.of(), StatementClassifier.dmlKeywordIndexes(SqlLexer.tokenize("DO inﬆead UPDATE t SET v = 1")));
    }
}
