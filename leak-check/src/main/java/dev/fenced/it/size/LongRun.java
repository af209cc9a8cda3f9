package dev.fenced.it.size;

/**
 * How much generated input fenced's seeded tests (the driver's planning oracles, the ITs' seeded probes) run: a short
 * run by default (the build and CI), the long run with {@code -Dfencedtest.long=true} (docs/testing.md, "Long runs"). The one switch for every such test, so that
 * one command runs them all long. Only generated volume depends on it: hand-written cases and planted faults run at
 * both sizes. Each generator draws from its own fixed seed one case after another, so the short run is the first part
 * of the long one: a case the build runs, the long run runs too.
 */
public final class LongRun {

    /** {@code -Dfencedtest.long=true}: the long run. */
    public static final boolean ON = Boolean.getBoolean("fencedtest.long");

    private LongRun() {}

    /** {@code build} generated cases in the build, {@code longRun} in the long run. */
    public static int cases(int build, int longRun) {
        return ON ? longRun : build;
    }

    /** What the build expects, or what the long run expects (a golden hash of each run's plans). */
    public static String expected(String build, String longRun) {
        return ON ? longRun : build;
    }
}
