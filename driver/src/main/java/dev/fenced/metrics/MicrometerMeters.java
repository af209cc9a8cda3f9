package dev.fenced.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Metrics;

/** Loaded only when Micrometer is present: one function counter per fenced counter, in the global registry. */
final class MicrometerMeters {

    private MicrometerMeters() {
    }

    static void bind() {
        for (Counter c : Counter.values()) {
            FunctionCounter.builder(c.meterName(), c, Counter::value)
                    .description(c.description())
                    .register(Metrics.globalRegistry);
        }
    }
}
