package dev.fenced.demo;

import java.io.PrintStream;
import java.util.List;
import java.util.function.ToLongFunction;

/** The table per mode, side by side, and the one sentence a person can quote. */
final class Report {

    private Report() {}

    /** A row of the summary: its label, and its value in one mode's night. */
    record Line(String label, ToLongFunction<ModeResult> value) {}

    private static final int LABEL = 62;
    private static final int COLUMN = 16;

    /** The decisive row first, then where the stale writes went, then the night's circumstances. */
    static final List<Line> LINES = List.of(
            new Line("totals left wrong (checked against the orders)", r -> r.wrongTotals),
            new Line("  orders missing from those totals", r -> r.lostOrders),
            new Line("stale writes (a frozen holder writes after losing its lease)", r -> r.staleAttempted),
            new Line("  refused by the database: the row holds a newer token", r -> r.staleRefusedByDatabase),
            new Line("  refused by fenced before sending: lease known lost", r -> r.staleRefusedBeforeSending),
            new Line("  landed after the newer total (wrong if orders came between)", ModeResult::staleLandedHarmfully),
            new Line("  landed before it: harmless, the newer total replaced it", r -> r.staleLandedHarmlessly),
            new Line("holders frozen past their lease (GC pause, stalled network)", r -> r.pauses),
            new Line("  of them with the write already on the network", r -> r.inFlight),
            new Line("restaurants a second holder ran, after a freeze or slow run", r -> r.secondHolder),
            new Line("holders that saw the lease lost in time and stopped", r -> r.gaveUp),
            new Line("restaurants never finished", r -> r.unrun),
            new Line("runs started (lease grants)", r -> r.runs),
            new Line("  slow runs (longer than the lease; renewal keeps them safe)", r -> r.slowRuns),
            new Line("lease renewals", r -> r.renewals),
            new Line("  renewals that failed (no answer in time; a frozen holder)", r -> r.failedRenewals),
            new Line("wall-clock seconds", r -> r.seconds));

    /** The second database's row, shown when the job writes one. */
    static final Line LEDGER = new Line("ledger rows left wrong (the second database's copies)", r -> r.wrongLedger);

    /** The rows for these results: {@link #LINES}, with {@link #LEDGER} second when the job wrote a ledger. */
    static List<Line> lines(List<ModeResult> results) {
        if (results.stream().noneMatch(r -> r.wrongLedger >= 0)) {
            return LINES;
        }
        List<Line> lines = new java.util.ArrayList<>(LINES);
        lines.add(1, LEDGER);
        return lines;
    }

    static String heading(ModeResult r) {
        return switch (r.mode) {
            case LEASE -> "lease only";
            case FENCED -> "lease + fenced";
            case LEASE_NO_RENEW -> "lease, no renewal";
        };
    }

    /** The summary table, one column per mode. */
    static List<String> table(List<ModeResult> results) {
        List<String> rows = new java.util.ArrayList<>();
        StringBuilder header = new StringBuilder(" ".repeat(LABEL));
        for (ModeResult r : results) {
            header.append(String.format("%" + COLUMN + "s", heading(r)));
        }
        rows.add(header.toString());
        for (Line line : lines(results)) {
            StringBuilder b = new StringBuilder(String.format("%-" + LABEL + "s", line.label()));
            for (ModeResult r : results) {
                b.append(String.format("%" + COLUMN + "d", line.value().applyAsLong(r)));
            }
            rows.add(b.toString());
        }
        return rows;
    }

    /** What the rows mean, in the words of a person who has not read the code. */
    static final List<String> NOTES = List.of(
            "A total is wrong when it is not the sum of the orders its newest holder counted. A stale write that",
            "lands before the newer holder's write does no harm: that holder then writes its whole new total over it",
            "(the article: write whole values, not changes to old ones). Renewals fail when a frozen holder's renewal",
            "gets no answer in time; its lease then runs out, which is how a second holder gets in.");

    static void print(List<ModeResult> results, PrintStream out) {
        out.println();
        table(results).forEach(out::println);
        out.println();
        NOTES.forEach(out::println);
    }

    static String sentence(List<ModeResult> results) {
        StringBuilder b = new StringBuilder();
        for (ModeResult r : results) {
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(heading(r))
                    .append(": ")
                    .append(r.wrongTotals)
                    .append(r.wrongTotals == 1 ? " total" : " totals")
                    .append(" corrupted");
            if (r.wrongLedger >= 0) {
                b.append(" (and ").append(r.wrongLedger).append(" in the ledger)");
            }
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
                .allMatch(
                        r -> r.wrongTotals == 0 && r.wrongLedger <= 0 && r.staleLandedHarmfully() == 0 && r.unrun == 0);
    }
}
