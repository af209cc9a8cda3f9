package dev.fenced.internal.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes the counters once per class loader: the {@code dev.fenced:type=Metrics} MBean, and Micrometer
 * meters in its global registry when Micrometer is on the class path (Micrometer's classes are only
 * touched after that check, so it stays optional).
 */
public final class MetricsPublisher {

    private static final System.Logger LOG = System.getLogger("dev.fenced.metrics");
    private static final AtomicBoolean JMX = new AtomicBoolean();
    private static final AtomicBoolean MICROMETER = new AtomicBoolean();

    private MetricsPublisher() {
    }

    /** Idempotent; never fails the caller. */
    public static void publish(boolean jmx) {
        if (jmx && JMX.compareAndSet(false, true)) {
            Jmx.register("dev.fenced:type=Metrics", Bean::new);
        }
        if (MICROMETER.compareAndSet(false, true) && micrometerPresent()) {
            try {
                MicrometerMeters.bind();
            } catch (LinkageError | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "fenced: could not bind Micrometer meters: " + e);
            }
        }
    }

    private static boolean micrometerPresent() {
        try {
            Class.forName("io.micrometer.core.instrument.Metrics", false, MetricsPublisher.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Every counter by meter name. */
    public static Map<String, Long> counters() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            out.put(c.meterName(), c.value());
        }
        return out;
    }

    static final class Bean implements MetricsMXBean {
        @Override
        public Map<String, Long> getCounters() {
            return counters();
        }

        @Override
        public Map<String, Long> getStaleWritesByTable() {
            return FencedMetrics.staleByTable();
        }

        @Override
        public long getWritesFenced() {
            return Counter.WRITES_FENCED.value();
        }

        @Override
        public long getStaleWritesRefused() {
            return Counter.STALE_WRITES_REFUSED.value();
        }

        @Override
        public long getUnfencedWritesObserved() {
            return Counter.UNFENCED_WRITES_OBSERVED.value();
        }

        @Override
        public long getStatementsRefused() {
            return Counter.UNSUPPORTED_REFUSED.value();
        }

        @Override
        public long getLeasesLost() {
            return Counter.LEASES_LOST.value();
        }
    }
}
