package dev.fenced;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LeaseNamesTest {

    @Test
    void partsHoldingTheSeparatorNoLongerMeet() {
        // issue 25: JobKey("a.b","c") and JobKey("a","b.c") both became quartz:a.b.c
        assertEquals("quartz:a%2Eb.c", LeaseNames.of("quartz", "a.b", '.', "c"));
        assertEquals("quartz:a.b.c", LeaseNames.of("quartz", "a", '.', "b.c"));
        assertEquals("db-scheduler:report%2Fdaily/1", LeaseNames.of("db-scheduler", "report/daily", '/', "1"));
        assertEquals("db-scheduler:report/daily/1", LeaseNames.of("db-scheduler", "report", '/', "daily/1"));
    }

    @Test
    void usualNamesAreWrittenAsTheyWere() {
        assertEquals("quartz:DEFAULT.nightly.totals", LeaseNames.of("quartz", "DEFAULT", '.', "nightly.totals"));
        assertEquals(
                "db-scheduler:nightly-totals/recurring",
                LeaseNames.of("db-scheduler", "nightly-totals", '/', "recurring"));
    }

    @Test
    void theEscapeCharacterIsEscapedToo() {
        // without it, ("a%2E", "b") and ("a.", "b") would meet
        assertNotEquals(LeaseNames.of("q", "a.", '.', "b"), LeaseNames.of("q", "a%2E", '.', "b"));
        assertEquals("q:a%252E.b", LeaseNames.of("q", "a%2E", '.', "b"));
    }

    /** Generated pairs over an alphabet rich in separators and escapes: no two different pairs share a name. */
    @Test
    void differentPartsNeverMakeTheSameName() {
        long seed = 25L;
        Random random = new Random(seed);
        String alphabet = "a.%/2EF";
        Map<String, List<String>> seen = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            String first = word(random, alphabet);
            String last = word(random, alphabet);
            char separator = random.nextBoolean() ? '.' : '/';
            String name = LeaseNames.of("lib", first, separator, last);
            List<String> parts = List.of(first, String.valueOf(separator), last);
            List<String> earlier = seen.putIfAbsent(name + "|" + separator, parts);
            if (earlier != null) {
                assertEquals(earlier, parts, "seed " + seed + ": " + name);
            }
        }
    }

    @Test
    void badSeparatorsAndLibrariesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> LeaseNames.of("q", "a", '%', "b"));
        assertThrows(IllegalArgumentException.class, () -> LeaseNames.of("q", "a", ':', "b"));
        assertThrows(IllegalArgumentException.class, () -> LeaseNames.of("q:x", "a", '.', "b"));
        assertThrows(IllegalArgumentException.class, () -> LeaseNames.of("", "a", '.', "b"));
    }

    private static String word(Random random, String alphabet) {
        int length = random.nextInt(5);
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return out.toString();
    }
}
