package dev.fenced.demo;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * How one run of one restaurant goes: how long its work takes, whether it is one of the slow 1%, whether
 * its holder freezes before writing. Drawn from the random seed, the restaurant and the attempt number,
 * so every mode sees the same nights. Only a first attempt freezes: the newer holder is the healthy one.
 */
record RunPlan(boolean slow, Duration work, boolean pause, Duration pauseLength) {

    static RunPlan of(Options o, int restaurant, int attempt) {
        SplittableRandom random = new SplittableRandom(o.randomSeed * 1_000_003L + restaurant * 31L + attempt);
        boolean slow = random.nextDouble() < o.slowRate;
        double seconds = slow ? o.slowRun : 2 + random.nextDouble() * (o.run - 2);
        boolean pause = attempt == 1 && random.nextDouble() < o.pauseRate;
        return new RunPlan(slow, o.scaled(seconds), pause, o.scaled(o.pause));
    }
}
