package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The cheaper forms of checks a never-seen text's plan asks many times over answer exactly what the forms they
 * replace answered: each is compared here with the original formula, on the inputs where the two could part (non-ASCII
 * case mappings, names at PostgreSQL's identifier limit, numbers parseInt reads differently).
 */
class PlanningShortcutsTest {

    @Test
    void theTokenTextIsTheNodePrinted() {
        for (int i = 0; i < 1100; i++) {
            assertEquals(Guards.token(i).toString(), Guards.tokenText(i), "index " + i);
            assertEquals(Guards.token(i).toString(), Guards.tokenText(i), "index " + i + ", kept");
        }
    }

    @Test
    void parameterNumbersAreReadAsParseIntReadsThem() {
        List<String> texts = List.of(
                "?1",
                "?7",
                "?12",
                "?123456789",
                "?1234567890",
                "?2147483647",
                "?2147483648",
                "?99999999999",
                "?",
                "?+1",
                "?-1",
                "?\u0663",
                "?1\u0663",
                "?0",
                "?007");
        for (String text : texts) {
            assertEquals(
                    outcome(() -> Integer.parseInt(text, 1, text.length(), 10)),
                    outcome(() -> SqlRewriter.parameterNumber(text, 1, text.length())),
                    text);
        }
    }

    @Test
    void tableNamesMatchAsTheThreeComparisonsMatchThem() {
        String a63 = "a".repeat(63);
        List<String> names = List.of(
                "bench_fenced",
                "Bench_fenced",
                "bench_fence",
                "",
                "é",
                "É",
                "\u212Aey",
                "key",
                a63,
                a63 + "x",
                a63 + "y",
                "a".repeat(62) + "é",
                "a".repeat(62) + "éz",
                "a".repeat(62) + "É",
                "a".repeat(61) + "é");
        for (String a : names) {
            for (String b : names) {
                boolean expected = sameStored(a, b)
                        || sameStored(TableName.truncated(a, true), TableName.truncated(b, true))
                        || sameStored(TableName.truncated(a, false), TableName.truncated(b, false));
                assertEquals(expected, TableName.sameName(a, b), a + " / " + b);
            }
        }
    }

    @Test
    void fencedsOwnPrefixesAreFoundAsInTheLowerCasedName() {
        List<String> names = new ArrayList<>(List.of(
                "fenced_merge_x",
                "FENCED_MERGE_X",
                "\"Fenced_Current_Of_c\"",
                "fenced\"\"_merge_x",
                "fenced_merg",
                "fenced_merge_",
                "xfenced_merge_",
                "",
                "\"\"",
                "fenced_merge_é",
                "FENCED_CURRENT_OF_İ",
                "\u212Aey",
                "fenced_current_of",
                "fenced_current_of_1",
                "fenced_mergE_1"));
        names.add("FENCED_MERGE_\u0130"); // a capital dotted I lower-cases to two characters
        for (String name : names) {
            String plain = name.toLowerCase(Locale.ROOT).replace("\"", "");
            boolean expected = plain.startsWith(CursorReference.PREFIX) || plain.startsWith(MergePlaceholders.PREFIX);
            assertEquals(expected, SqlRewriter.startsLikeOurs(name), name);
        }
    }

    private static boolean sameStored(String a, String b) {
        return a.equals(b) || (!ascii(a) || !ascii(b)) && a.equalsIgnoreCase(b);
    }

    private static boolean ascii(String s) {
        return s.chars().allMatch(c -> c <= 127);
    }

    private interface IntCall {
        int call();
    }

    /** The number read, or the exception's class. */
    private static String outcome(IntCall call) {
        try {
            return Integer.toString(call.call());
        } catch (RuntimeException e) {
            return e.getClass().getName();
        }
    }
}
