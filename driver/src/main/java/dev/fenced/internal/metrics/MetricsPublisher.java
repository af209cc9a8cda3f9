package dev.fenced.internal.metrics;

import dev.fenced.internal.log.Logs;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes the JVM-wide counters ({@link Tracker#totals()}) once per class loader: the {@code dev.fenced:type=Metrics} MBean, and Micrometer
 * meters in its global registry when Micrometer is on the class path (Micrometer's classes are only
 * touched after that check, so it stays optional).
 */
public final class MetricsPublisher {

    private static final System.Logger LOG = Logs.get("dev.fenced.metrics");
    private static final AtomicBoolean JMX = new AtomicBoolean();
    private static final AtomicBoolean MICROMETER = new AtomicBoolean();

    private MetricsPublisher() {}

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

    /** Reads the JVM-wide {@link Tracker#totals()}. */
    static final class Bean implements MetricsMXBean {
        private static long value(Counter c) {
            return Tracker.totals().value(c);
        }

        @Override
        public Map<String, Long> getCounters() {
            return Tracker.totals().counters();
        }

        @Override
        public Map<String, Long> getStaleWritesByTable() {
            return Tracker.totals().staleByTable();
        }

        @Override
        public long getWritesFenced() {
            return value(Counter.WRITES_FENCED);
        }

        @Override
        public long getStaleWritesRefused() {
            return value(Counter.STALE_WRITES_REFUSED);
        }

        @Override
        public long getUnfencedWritesObserved() {
            return value(Counter.UNFENCED_WRITES_OBSERVED);
        }

        @Override
        public long getStatementsRefused() {
            return value(Counter.UNSUPPORTED_REFUSED);
        }

        @Override
        public long getLeasesLost() {
            return value(Counter.LEASES_LOST);
        }
    }
}
