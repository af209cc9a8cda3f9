package dev.fenced.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * Loaded only when Micrometer is present: one function counter per fenced counter, in the global registry, or
 * in an application's own registry ({@link #bindTo}, for Spring Boot's MeterBinder).
 */
public final class MicrometerMeters {

    private MicrometerMeters() {
    }

    static void bind() {
        bindTo(Metrics.globalRegistry);
    }

    /** Registers every {@link Counter} in {@code registry}; registering twice is harmless (same meters). */
    public static void bindTo(MeterRegistry registry) {
        for (Counter c : Counter.values()) {
            FunctionCounter.builder(c.meterName(), c, Counter::value)
                    .description(c.description())
                    .register(registry);
        }
    }
}
