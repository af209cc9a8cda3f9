package dev.fenced.demo;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * How one run of one restaurant goes: how long its work takes, whether it is one of the slow 1%, whether
 * its holder freezes, and how. Drawn from the random seed, the restaurant and the attempt number, so every
 * mode sees the same nights. Only a first attempt freezes: the newer holder is the healthy one.
 */
record RunPlan(boolean slow, Duration work, Freeze freeze, Duration pauseLength) {

    /** Where the freeze falls. */
    enum Freeze {
        NONE,
        /** Between the holder's last check of its lease and its write (a GC pause, a stalled VM). */
        BEFORE_WRITE,
        /** After the driver read the token, while the write is on its way (a stalled network). */
        IN_FLIGHT
    }

    boolean pause() {
        return freeze != Freeze.NONE;
    }

    static RunPlan of(Options o, int restaurant, int attempt) {
        SplittableRandom random = new SplittableRandom(o.randomSeed * 1_000_003L + restaurant * 31L + attempt);
        boolean slow = random.nextDouble() < o.slowRate;
        double seconds = slow ? o.slowRun : 2 + random.nextDouble() * (o.run - 2);
        Freeze freeze = attempt == 1 && random.nextDouble() < o.pauseRate
                ? (random.nextBoolean() ? Freeze.BEFORE_WRITE : Freeze.IN_FLIGHT)
                : Freeze.NONE;
        return new RunPlan(slow, o.scaled(seconds), freeze, o.scaled(o.pause));
    }
}
