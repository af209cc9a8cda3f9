package dev.fenced.demo;

/**
 * One mode's figures, for tests and tools that run the demo in-process ({@link DemoMain#figures}); {@code wrongLedger}
 * is -1 unless the job wrote a second database ({@code --databases 2}).
 */
public record ModeFigures(
        String mode,
        long runs,
        long freezes,
        long secondHolders,
        long staleAttempted,
        long staleRefusedByDatabase,
        long staleRefusedBeforeSending,
        long staleLandedHarmlessly,
        long staleLandedHarmfully,
        long wrongTotals,
        long lostOrders,
        long unfinished,
        long wrongLedger) {

    static ModeFigures of(ModeResult r) {
        return new ModeFigures(
                r.mode.key,
                r.runs,
                r.pauses,
                r.secondHolder,
                r.staleAttempted,
                r.staleRefusedByDatabase,
                r.staleRefusedBeforeSending,
                r.staleLandedHarmlessly,
                r.staleLandedHarmfully(),
                r.wrongTotals,
                r.lostOrders,
                r.unrun,
                r.wrongLedger);
    }

    public long staleRefused() {
        return staleRefusedByDatabase + staleRefusedBeforeSending;
    }
}
