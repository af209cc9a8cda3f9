package dev.fenced.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlLexerTest {

    private static List<String> texts(String sql) {
        return SqlLexer.tokenize(sql).stream().map(Token::text).toList();
    }

    private static List<Token.Kind> kinds(String sql) {
        return SqlLexer.tokenize(sql).stream().map(Token::kind).toList();
    }

    @Test
    void parametersAreFoundOutsideLiteralsAndComments() {
        assertEquals(List.of("UPDATE", "t", "SET", "a", "=", "?", ",", "b", "=", "'?'", "/", "c"),
                texts("UPDATE t SET a = ?, b = '?' -- ? \n /* ? /* nested ? */ */ / c"));
        assertEquals(Token.Kind.PARAMETER, kinds("?").get(0));
        assertEquals(Token.Kind.SYMBOL, kinds("??").get(0));
    }

    @Test
    void everyPostgresStringFormIsOneToken() {
        assertEquals(List.of("E'a\\'b'", "$$x ? y$$", "$tag$ $$ ? $tag$", "U&'d\\0061t'", "B'101'", "X'ff'", "'a''b'"),
                texts("E'a\\'b' $$x ? y$$ $tag$ $$ ? $tag$ U&'d\\0061t' B'101' X'ff' 'a''b'"));
        assertEquals(List.of(Token.Kind.QUOTED_IDENTIFIER, Token.Kind.SYMBOL, Token.Kind.QUOTED_IDENTIFIER),
                kinds("\"Sales\".\"To\"\"tals\""));
        assertEquals(Token.Kind.POSITIONAL_PARAMETER, kinds("$1").get(0));
    }

    @Test
    void castsAndOperatorsStayWhole() {
        assertEquals(List.of("a", "::", "int", "<=", "b", "!~~", "c"), texts("a::int <= b !~~ c"));
        assertEquals(List.of("1.5e3", "-", "2"), texts("1.5e3 - 2"));
    }

    @Test
    void unterminatedTextIsReportedInStrictMode() {
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("SELECT 'x"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("SELECT /* x"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("SELECT $a$ x"));
    }

    @Test
    void anOperatorDoesNotEndInPlusOrMinusAsInPostgreSQL() {
        assertEquals(List.of("aa", "=", "-", "3"), texts("aa=-3"));
        assertEquals(List.of("a", "<>", "-", "1"), texts("a<>-1"));
        assertEquals(List.of("a", "<=", "+", "-", "1"), texts("a<=+-1"));
    }

    @Test
    void anOperatorHoldingACharacterSqlOperatorsLackKeepsItsTrailingSign() {
        // PostgreSQL reads these as one operator each.
        assertEquals(List.of("a", "@-", "b"), texts("a @- b"));
        assertEquals(List.of("a", "!=-", "1"), texts("a !=- 1"));
        assertEquals(List.of("x", "||-", "1"), texts("x ||-1"));
    }

    @Test
    void aCommentStartEndsAnOperator() {
        assertEquals(List.of("a", "*", "b"), texts("a*-- c\nb"));
    }
}
