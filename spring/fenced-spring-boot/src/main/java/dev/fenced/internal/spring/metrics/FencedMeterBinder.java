package dev.fenced.internal.spring.metrics;

import dev.fenced.internal.metrics.MicrometerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/** fenced's counters (writes fenced, stale writes refused, leases granted and lost...) in the application's registry. */
public final class FencedMeterBinder implements MeterBinder {

    @Override
    public void bindTo(MeterRegistry registry) {
        MicrometerMeters.bindTo(registry);
    }
}
