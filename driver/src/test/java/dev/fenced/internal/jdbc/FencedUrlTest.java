package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Splitting a {@code jdbc:fenced:postgresql:} URL into pgjdbc's URL and fenced's own parameters. */
class FencedUrlTest {

    @Test
    void onlyThePostgresqlFormIsAccepted() {
        assertTrue(FencedUrl.accepts("jdbc:fenced:postgresql://h/db"));
        assertTrue(FencedUrl.accepts("jdbc:fenced:postgresql:db"));
        assertFalse(FencedUrl.accepts("jdbc:postgresql://h/db"));
        assertFalse(FencedUrl.accepts("jdbc:fenced:mysql://h/db"));
        assertFalse(FencedUrl.accepts(null));
    }

    @Test
    void withoutParametersThePrefixBecomesJdbcOnce() {
        FencedUrl u = FencedUrl.parse("jdbc:fenced:postgresql://h:5432/jdbc:fenced:db");
        assertEquals("jdbc:postgresql://h:5432/jdbc:fenced:db", u.delegateUrl());
        assertEquals(Map.of(), u.fencedParameters());
        assertEquals(List.of(), u.repeated());
    }

    @Test
    void fencedParametersAreTakenOutAndTheRestKeptAsWritten() {
        FencedUrl u = FencedUrl.parse("jdbc:fenced:postgresql://h/db?user=u&fenced.tables=a,b&ssl=true"
                + "&fenced.mode=observe&options=-c%20search_path%3Dx");
        assertEquals("jdbc:postgresql://h/db?user=u&ssl=true&options=-c%20search_path%3Dx", u.delegateUrl());
        assertEquals(Map.of("fenced.tables", "a,b", "fenced.mode", "observe"), u.fencedParameters());
        assertEquals(
                List.of("fenced.tables", "fenced.mode"),
                List.copyOf(u.fencedParameters().keySet()),
                "in the order written");
    }

    @Test
    void onlyFencedParametersLeaveNoQuestionMark() {
        assertEquals(
                "jdbc:postgresql://h/db",
                FencedUrl.parse("jdbc:fenced:postgresql://h/db?fenced.tables=t").delegateUrl());
    }

    @Test
    void fencedKeysAndValuesArePercentDecoded() {
        FencedUrl u =
                FencedUrl.parse("jdbc:fenced:postgresql://h/db?fenced%2Etables=%22Sales%22.%22Totals%22&fenced.flag");
        assertEquals("\"Sales\".\"Totals\"", u.fencedParameters().get("fenced.tables"));
        assertEquals("", u.fencedParameters().get("fenced.flag"), "a key with no value is an empty value");
    }

    @Test
    void emptyPairsAreDropped() {
        FencedUrl u = FencedUrl.parse("jdbc:fenced:postgresql://h/db?&user=u&&fenced.tables=t&");
        assertEquals("jdbc:postgresql://h/db?user=u", u.delegateUrl());
        assertEquals("t", u.fencedParameters().get("fenced.tables"));
    }

    @Test
    void aFencedParameterGivenTwiceIsReportedNotSilentlyOverwritten() {
        FencedUrl u = FencedUrl.parse("jdbc:fenced:postgresql://h/db?fenced.tables=a&fenced.tables=b&fenced.mode=x");
        assertEquals(List.of("fenced.tables"), u.repeated());
    }

    @Test
    void theDatabaseKeyNamesDatabaseAndUserWithoutSecrets() {
        FencedUrl u = FencedUrl.parse("jdbc:fenced:postgresql://h/db?password=hunter2&fenced.tables=t");
        String key = u.databaseKey("alice");
        assertEquals("jdbc:postgresql://h/db?password=***|alice", key);
        assertFalse(key.contains("hunter2"));
    }
}
