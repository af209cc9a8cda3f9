package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.TableName;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.StringProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The guards are built as nodes; this holds the SQL they stand for, as text, and checks that the built nodes
 * print exactly what JSqlParser makes of that text, for plain, aliased and quoted names, odd table labels and
 * several token positions.
 */
class GuardsTest {

    record Case(String qualifier, String column, String label, int token) {
        String ref() {
            return qualifier + "." + TableName.quote(column);
        }

        String param() {
            return "CAST(?" + token + " AS bigint)";
        }

        String stale() {
            return "pg_catalog.concat('" + Guards.MARKER + "', " + ref() + ", ':" + StaleMarker.nonce() + ":"
                    + label.replace("'", "''") + "')";
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case("totals", "last_token", "totals", 1),
                new Case("t", "last_token", "public.totals", 3),
                new Case("\"Totals\"", "last_token", "\"Totals\"", 2),
                new Case("t", "Fence Token", "o'brien", 12),
                new Case("\"select\"", "last_token", "s.\"select\"", 7));
    }

    private static Expression parsed(String sql) throws Exception {
        return new CCJSqlParser(new StringProvider(sql))
                .withAllowComplexParsing(false)
                .Expression();
    }

    private static String printed(String sql) throws Exception {
        return parsed(sql).toString();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theUpdateGuardPrintsAsItsTemplate(Case c) throws Exception {
        String bare = "?" + c.token();
        String template = "CASE WHEN pg_catalog.int8gt(" + c.ref() + ", " + bare + ") THEN pg_catalog.pg_size_bytes("
                + c.stale() + ") ELSE " + bare + " END";
        assertEquals(
                printed(template),
                Guards.setValue(c.qualifier(), c.column(), c.label(), c.token(), FencingMode.ENFORCE, false)
                        .toString());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theUpdateGuardForANullTokenKeepsTheRowsValue(Case c) throws Exception {
        String bare = "?" + c.token();
        String template = "CASE WHEN pg_catalog.int8gt(" + c.ref() + ", " + bare + ") THEN pg_catalog.pg_size_bytes("
                + c.stale() + ") ELSE COALESCE(" + bare + ", " + c.ref() + ") END";
        assertEquals(
                printed(template),
                Guards.setValue(c.qualifier(), c.column(), c.label(), c.token(), FencingMode.ENFORCE, true)
                        .toString());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theObserveModeValuePrintsAsItsTemplate(Case c) throws Exception {
        assertEquals(
                printed("GREATEST(" + c.ref() + ", " + c.param() + ")"),
                Guards.setValue(c.qualifier(), c.column(), c.label(), c.token(), FencingMode.OBSERVE, false)
                        .toString());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theDeleteGuardPrintsAsItsTemplate(Case c) throws Exception {
        String check = "CASE WHEN pg_catalog.int8gt(" + c.ref() + ", " + c.param() + ") THEN CAST(" + c.stale()
                + " AS boolean)" + " ELSE TRUE END";
        assertEquals(
                printed(check),
                Guards.deleteWhere(null, c.qualifier(), c.column(), c.label(), c.token())
                        .toString());
        Expression where = parsed("id = ?1 AND kind <> 'x'");
        assertEquals(
                printed("(id = ?1 AND kind <> 'x') AND CASE WHEN (id = ?1 AND kind <> 'x') THEN " + check
                        + " ELSE FALSE END"),
                Guards.deleteWhere(where, c.qualifier(), c.column(), c.label(), c.token())
                        .toString());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theTokenPrintsAsItsTemplate(Case c) throws Exception {
        assertEquals(printed(c.param()), Guards.token(c.token()).toString());
    }
}
