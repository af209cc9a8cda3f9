package dev.fenced.internal.sql;

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
        assertEquals(
                List.of("UPDATE", "t", "SET", "a", "=", "?", ",", "b", "=", "'?'", "/", "c"),
                texts("UPDATE t SET a = ?, b = '?' -- ? \n /* ? /* nested ? */ */ / c"));
        assertEquals(Token.Kind.PARAMETER, kinds("?").get(0));
        assertEquals(Token.Kind.SYMBOL, kinds("??").get(0));
    }

    @Test
    void everyPostgresStringFormIsOneToken() {
        assertEquals(
                List.of("E'a\\'b'", "$$x ? y$$", "$tag$ $$ ? $tag$", "U&'d\\0061t'", "B'101'", "X'ff'", "'a''b'"),
                texts("E'a\\'b' $$x ? y$$ $tag$ $$ ? $tag$ U&'d\\0061t' B'101' X'ff' 'a''b'"));
        assertEquals(
                List.of(Token.Kind.QUOTED_IDENTIFIER, Token.Kind.SYMBOL, Token.Kind.QUOTED_IDENTIFIER),
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

    // ---- scan.l's rules, one test each (PostgreSQL is the authority; JSqlParser differs on every one of these)

    @Test
    void aTaggedDollarQuoteRunsToTheSameTagAndADollarInsideAnIdentifierContinuesIt() {
        assertEquals(
                List.of("UPDATE", "t", "SET", "v", "=", "$a$x WHERE y$a$"), texts("UPDATE t SET v = $a$x WHERE y$a$"));
        assertEquals(List.of("y$a$", "x"), texts("y$a$ x"));
        assertEquals(List.of("$a$ $b$ $a$"), texts("$a$ $b$ $a$"));
        assertEquals(List.of("$ab$x$a$y$ab$"), texts("$ab$x$a$y$ab$"));
        // a tag may not start with a digit: $1a is a parameter with junk, $ then an identifier otherwise
        assertEquals(List.of("$", "_x"), texts("$ _x"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("$1a"));
        assertEquals(Token.Kind.POSITIONAL_PARAMETER, kinds("$12").get(0));
    }

    @Test
    void anEscapeStringTakesBackslashEscapesAPlainStringDoesNot() {
        assertEquals(
                List.of("E'\\' || '", "WHERE", "id", "=", "1"), texts("E'\\' || '--' WHERE v = '\nWHERE id = 1 --'"));
        assertEquals(List.of("'a\\'", "b"), texts("'a\\' b"));
        assertEquals(List.of("e'it\\'s'"), texts("e'it\\'s'"));
    }

    @Test
    void withStandardConformingStringsOffAPlainStringTakesBackslashEscapes() throws SqlLexer.LexException {
        List<String> off = SqlLexer.tokenizeStrict("'a\\' b' c", false, SqlLexer.Mode.JDBC).stream()
                .map(Token::text)
                .toList();
        assertEquals(List.of("'a\\' b'", "c"), off);
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("U&'x'", false, SqlLexer.Mode.JDBC));
    }

    @Test
    void blockCommentsNest() {
        assertEquals(
                List.of("100", "-", "10", "-", "1", "WHERE"),
                texts("100 - /* /* */ ( --*/\n10 - 1 /* /* */ ) --*/\nWHERE"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("a /* /* */ b"));
    }

    @Test
    void aStringContinuesAcrossANewlineButNotAcrossSpaceAlone() {
        assertEquals(List.of("'a'\n'b'"), texts("'a'\n'b'"));
        assertEquals(List.of("'a' -- c\n  'b'"), texts("'a' -- c\n  'b'"));
        assertEquals(List.of("'a'", "'b'"), texts("'a' 'b'"));
        assertEquals(List.of("'a'", "'b'"), texts("'a' /* c */\n'b'"));
        assertEquals(List.of("E'a'\n'\\''"), texts("E'a'\n'\\''"));
    }

    @Test
    void prefixedStrings() {
        assertEquals(List.of("U&'d\\0061t'", "UESCAPE", "'!'"), texts("U&'d\\0061t' UESCAPE '!'"));
        assertEquals(
                Token.Kind.QUOTED_IDENTIFIER, kinds("U&\"d!0061t\" UESCAPE '!'").get(0));
        assertEquals(List.of("B'10'", "'1'"), texts("B'10''1'"), "a bit string has no doubled quote");
        assertEquals(List.of("N'x''y'"), texts("N'x''y'"));
        assertEquals(List.of("xE", "'a'"), texts("xE'a'"), "E only prefixes a string at a token start");
    }

    @Test
    void operatorsFollowScanL() {
        assertEquals(List.of("a", "!~~", "b"), texts("a !~~ b"));
        assertEquals(List.of("a", "+", "b"), texts("a +/* c */b"));
        assertEquals(List.of("a", "<", "b"), texts("a <-- c\nb"));
        assertEquals(List.of("a", "::", "int", ":=", "x", "..", "y"), texts("a::int := x .. y"));
        assertEquals(List.of("a", "@-", "b"), texts("a @- b"));
        assertEquals(List.of("a", "*", "-", "b"), texts("a*-b"));
        assertEquals(List.of("a", "%-", "b"), texts("a %- b"), "% keeps a trailing sign");
    }

    @Test
    void questionMarksAreJdbcParametersButServerSideOperatorCharacters() throws SqlLexer.LexException {
        assertEquals(List.of("a", "@", "?", "b"), texts("a @? b"));
        assertEquals(
                List.of("a", "@?", "b"),
                SqlLexer.tokenizeStrict("a @? b", true, SqlLexer.Mode.SERVER).stream()
                        .map(Token::text)
                        .toList());
    }

    @Test
    void numbers() throws SqlLexer.LexException {
        assertEquals(
                List.of("0x1F", "1_000", "0o17", "0b101", "1.5e-3", ".5", "1."),
                texts("0x1F 1_000 0o17 0b101 1.5e-3 .5 1."));
        assertEquals(List.of("1", "..", "2"), texts("1..2"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("SELECT 123abc"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("SELECT 1e"));
    }

    @Test
    void whitespaceIsOnlyWhatPostgresCallsWhitespace() {
        assertEquals(List.of("a\u2003b"), texts("a\u2003b"), "a non-ASCII space is an identifier character");
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("a\u000Bb"));
        assertThrows(SqlLexer.LexException.class, () -> SqlLexer.tokenizeStrict("\"\""));
    }
}
