package dev.fenced.internal.metrics;

import java.util.Map;

/** The JMX view of fenced's counters: {@code dev.fenced:type=Metrics}. */
public interface MetricsMXBean {

    /** Every counter by its meter name. */
    Map<String, Long> getCounters();

    /** Stale writes refused, by table. */
    Map<String, Long> getStaleWritesByTable();

    long getWritesFenced();

    long getStaleWritesRefused();

    long getUnfencedWritesObserved();

    long getStatementsRefused();

    long getLeasesLost();
}
