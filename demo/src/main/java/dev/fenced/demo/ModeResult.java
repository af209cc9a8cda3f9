package dev.fenced.demo;

/** One mode's night, counted. */
final class ModeResult {

    final Options.Mode mode;
    long runs;
    long slowRuns;
    long pauses;
    long inFlight;
    long secondHolder;
    long staleAttempted;
    long staleRefusedByDatabase;
    long staleRefusedBeforeSending;
    long staleLandedHarmlessly;
    long gaveUp;
    long wrongTotals;
    /** Ledger rows (the second database's copies) left wrong; -1 when the job writes one database. */
    long wrongLedger = -1;

    long lostOrders;
    long unrun;
    long renewals;
    long failedRenewals;
    long seconds;
    /** One restaurant that shows the mode's point, or null when no frozen holder met a newer write. */
    Incident incident;

    ModeResult(Options.Mode mode) {
        this.mode = mode;
    }

    long staleRefused() {
        return staleRefusedByDatabase + staleRefusedBeforeSending;
    }

    /** Stale writes that landed after the newer holder's write: each leaves a wrong total. */
    long staleLandedHarmfully() {
        return staleAttempted - staleRefused() - staleLandedHarmlessly;
    }
}
