package dev.fenced.internal.sql;

import java.security.SecureRandom;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The text a guard fails on when a row holds a newer token, and its recognition in the error PostgreSQL
 * sends back: {@code fenced-stale:<row token>:<nonce>:<table>}, rejected by {@code pg_size_bytes} (UPDATE) or
 * a cast to boolean (DELETE). The nonce is random per
 * runtime and matched exactly, so a cast error that user data causes (a row whose text is
 * {@code fenced-stale:99:t}) is never mistaken for a lost lease. The table is everything after the nonce up
 * to the quote PostgreSQL closes the value with, so a quoted label ({@code "Sales"."Totals"}) comes back whole.
 */
public final class StaleMarker {

    /** What every marker starts with. */
    public static final String PREFIX = "fenced-stale:";

    private static final String NONCE = HexFormat.of().formatHex(new SecureRandom().generateSeed(8));

    private StaleMarker() {}

    /** This runtime's nonce (tests that spell out a fenced statement need it). */
    public static String nonce() {
        return NONCE;
    }

    /** The literal that follows the row's token in the failing text: {@code :<nonce>:<table>}. */
    static String suffix(String tableLabel) {
        return ":" + NONCE + ":" + tableLabel;
    }

    /** A recognised marker: the row's token and the table label. */
    public record Found(long rowToken, String table) {}

    /**
     * The marker in {@code message} (PostgreSQL's {@code invalid size: "<text>"} or
     * {@code invalid input syntax for type boolean: "<text>"}),
     * or null when there is none carrying this runtime's nonce.
     */
    public static @Nullable Found find(String message) {
        for (int at = message.indexOf(PREFIX); at >= 0; at = message.indexOf(PREFIX, at + 1)) {
            int from = at + PREFIX.length();
            int colon = from;
            while (colon < message.length() && Character.isDigit(message.charAt(colon))) {
                colon++;
            }
            String tail = ":" + NONCE + ":";
            if (colon == from || colon - from > 19 || !message.startsWith(tail, colon)) {
                continue;
            }
            int tableStart = colon + tail.length();
            int lineEnd = message.indexOf('\n', tableStart);
            String line = message.substring(tableStart, lineEnd < 0 ? message.length() : lineEnd);
            int close = line.lastIndexOf('"');
            if (close <= 0) {
                continue;
            }
            try {
                return new Found(Long.parseLong(message.substring(from, colon)), line.substring(0, close));
            } catch (NumberFormatException e) {
                continue;
            }
        }
        return null;
    }
}
