package dev.fenced.demo;

import java.io.PrintStream;
import java.util.List;
import java.util.function.ToLongFunction;

/** The table per mode, side by side, and the one sentence a person can quote. */
final class Report {

    private Report() {}

    private record Line(String label, ToLongFunction<ModeResult> value) {}

    private static final List<Line> LINES = List.of(
            new Line("runs", r -> r.runs),
            new Line("slow runs (longer than the lease)", r -> r.slowRuns),
            new Line("freezes past the lease", r -> r.pauses),
            new Line("  of them with the write already on its way", r -> r.inFlight),
            new Line("restaurants with a second holder", r -> r.secondHolder),
            new Line("holders that saw their lease lost and stopped", r -> r.gaveUp),
            new Line("stale writes attempted", r -> r.staleAttempted),
            new Line("  refused by the database (stale token)", r -> r.staleRefusedByDatabase),
            new Line("  refused before sending (lease lost)", r -> r.staleRefusedBeforeSending),
            new Line("  landed before the newer holder wrote", r -> r.staleLandedHarmlessly),
            new Line("  landed after it, over the newer total", ModeResult::staleLandedHarmfully),
            new Line("totals left wrong (checked against orders)", r -> r.wrongTotals),
            new Line("orders missing from those totals", r -> r.lostOrders),
            new Line("restaurants never finished", r -> r.unrun),
            new Line("lease renewals", r -> r.renewals),
            new Line("failed renewals", r -> r.failedRenewals),
            new Line("seconds", r -> r.seconds));

    static void print(List<ModeResult> results, PrintStream out) {
        out.println();
        StringBuilder header = new StringBuilder(String.format("%-46s", ""));
        for (ModeResult r : results) {
            header.append(String.format("%16s", r.mode.key));
        }
        out.println(header);
        for (Line line : LINES) {
            StringBuilder b = new StringBuilder(String.format("%-46s", line.label()));
            for (ModeResult r : results) {
                b.append(String.format("%16d", line.value().applyAsLong(r)));
            }
            out.println(b);
        }
        out.println();
        out.println("A stale write that lands before the newer holder's write does no damage: the newer holder then");
        out.println("writes its whole new total over it (the seed: write whole values, not changes to old ones).");
        out.println("One that lands after it leaves a wrong total, unless no order arrived in between.");
        out.println();
        out.println(sentence(results));
    }

    static String sentence(List<ModeResult> results) {
        StringBuilder b = new StringBuilder();
        for (ModeResult r : results) {
            if (b.length() > 0) {
                b.append("; ");
            }
            String who = switch (r.mode) {
                case LEASE -> "lease only";
                case FENCED -> "lease + fenced";
                case LEASE_NO_RENEW -> "lease without renewal";
            };
            b.append(who)
                    .append(": ")
                    .append(r.wrongTotals)
                    .append(r.wrongTotals == 1 ? " total" : " totals")
                    .append(" corrupted");
            if (r.mode.fenced) {
                b.append(", ").append(r.staleRefused()).append(" stale writes refused");
            }
        }
        return b.toString();
    }

    /** True when every fenced mode ended with no damage: the demo's exit status. */
    static boolean fencedClean(List<ModeResult> results) {
        return results.stream()
                .filter(r -> r.mode.fenced)
                .allMatch(r -> r.wrongTotals == 0 && r.staleLandedHarmfully() == 0 && r.unrun == 0);
    }
}
