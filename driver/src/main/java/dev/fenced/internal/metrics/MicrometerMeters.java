package dev.fenced.internal.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * Loaded only when Micrometer is present: one function counter per fenced counter (the JVM-wide totals), in the global registry, or
 * in an application's own registry ({@link #bindTo}, for Spring Boot's MeterBinder).
 */
public final class MicrometerMeters {

    private MicrometerMeters() {}

    static void bind() {
        bindTo(Metrics.globalRegistry);
    }

    /**
     * Registers every {@link Counter} that {@code registry} does not have yet. A registry can have them already:
     * Spring Boot adds its registry to Micrometer's global one, which copies in the meters the driver bound there,
     * and then applies fenced's MeterBinder to it. Registering a function counter again would be ignored with a
     * "registered twice" warning (Micrometer 1.15 and later), so each is registered once.
     */
    public static void bindTo(MeterRegistry registry) {
        for (Counter c : Counter.values()) {
            if (registry.find(c.meterName()).meter() != null) {
                continue;
            }
            Counts totals = Tracker.totals();
            FunctionCounter.builder(c.meterName(), totals, t -> t.value(c))
                    .description(c.description())
                    .register(registry);
        }
    }
}
