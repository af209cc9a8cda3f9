package dev.fenced;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The SQLStates are documented API: applications and retry logic key on them, so none may change. */
class FencedSqlStateTest {

    /**
     * docs/errors.md, the table users read, lists exactly the codes of this enum, each once in the SQLState column
     * with its exception: a new code left out of it, or a code it lists that no longer exists, fails here.
     */
    @Test
    void theErrorsTableListsExactlyTheseCodes() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "errors.md"));
        Set<String> documented = new TreeSet<>();
        // | `Exception` (a note) | `FN020`, `FN021` | meaning |
        Matcher row = Pattern.compile("(?m)^\\| `(\\w+)`[^|]*\\| ((?:`FN\\w+`(?:, )?)+) \\|")
                .matcher(doc);
        Map<String, String> raisedAs = new LinkedHashMap<>();
        while (row.find()) {
            Matcher code = Pattern.compile("`(FN\\w+)`").matcher(row.group(2));
            while (code.find()) {
                String c = code.group(1);
                assertTrue(documented.add(c), () -> "docs/errors.md lists " + c + " twice");
                raisedAs.put(c, row.group(1));
            }
        }
        Set<String> codes = new TreeSet<>();
        for (FencedSqlState s : FencedSqlState.values()) {
            codes.add(s.code());
            assertEquals(
                    s.raisedAs().getSimpleName(),
                    raisedAs.get(s.code()),
                    () -> "docs/errors.md: the exception of " + s.code());
        }
        assertEquals(codes, documented, "the SQLStates docs/errors.md lists");
    }

    @Test
    void everyCodeIsTheDocumentedOne() {
        Map<String, String> codes = new LinkedHashMap<>();
        for (FencedSqlState s : FencedSqlState.values()) {
            codes.put(s.name(), s.code());
        }
        assertEquals(
                Map.ofEntries(
                        Map.entry("FENCING_ERROR", "FN000"),
                        Map.entry("STALE_TOKEN", "FN001"),
                        Map.entry("UNFENCED_WRITE", "FN002"),
                        Map.entry("UNSUPPORTED_STATEMENT", "FN003"),
                        Map.entry("LEASE_LOST", "FN004"),
                        Map.entry("TOKEN_DOMAIN", "FN005"),
                        Map.entry("CONFIGURATION", "FN010"),
                        Map.entry("SCHEMA", "FN011"),
                        Map.entry("TOKEN_DOMAIN_RECORDED", "FN012"),
                        Map.entry("NOTHING_PROTECTED", "FN013"),
                        Map.entry("LEASE_STORE", "FN020"),
                        Map.entry("LEASE_TIMEOUT", "FN021"),
                        Map.entry("LOCK_TIMEOUT", "FN030"),
                        Map.entry("LOCK_LOST", "FN031"),
                        Map.entry("TOMBSTONE_CHECK", "FNT01")),
                codes);
    }

    @Test
    void eachExceptionCarriesItsState() {
        assertEquals(FencedSqlState.STALE_TOKEN.code(), new StaleTokenException("t", 1, 2, null).getSQLState());
        assertEquals(FencedSqlState.UNFENCED_WRITE.code(), new UnfencedWriteException("t").getSQLState());
        assertEquals(
                FencedSqlState.UNSUPPORTED_STATEMENT.code(), new UnsupportedStatementException("t", "x").getSQLState());
        assertEquals(FencedSqlState.LEASE_LOST.code(), new LeaseLostException("l", 1).getSQLState());
        assertEquals(FencedSqlState.TOKEN_DOMAIN.code(), new TokenDomainException("t", "a", "b").getSQLState());
        assertEquals(FencedSqlState.FENCING_ERROR.code(), new FencingException("x").getSQLState());
        for (FencedSqlState s : FencedSqlState.values()) {
            assertTrue(
                    s == FencedSqlState.TOMBSTONE_CHECK || FencingException.class.isAssignableFrom(s.raisedAs()),
                    s::name);
        }
    }

    @Test
    void matchesComparesTheState() {
        assertTrue(FencedSqlState.LEASE_TIMEOUT.matches(new SQLException("x", "FN021")));
        assertTrue(!FencedSqlState.LEASE_TIMEOUT.matches(new SQLException("x", "FN020")));
        assertTrue(!FencedSqlState.LEASE_TIMEOUT.matches(new SQLException("x")));
    }
}
