package dev.fenced.internal.metrics;

/**
 * The counters of one owner: a runtime (one configuration on one database, owned by its DataSource or by the
 * driver) or a lease manager. Each increment also goes to the JVM-wide {@link #totals()}, which JMX ({@code
 * dev.fenced:type=Metrics}), Micrometer's {@code fenced.*} meters and {@link dev.fenced.FencedStats} read: so the
 * totals only grow, also when an owner goes away, and two DataSources on two databases keep counts of their own.
 */
public final class Tracker {

    private static final Counts TOTALS = new Counts();

    private final Counts own = new Counts();

    /** A new, empty set of counters that adds to the totals. */
    public Tracker() {
        // nothing shared but the totals
    }

    /** The sum over every tracker there has been in this class loader. */
    public static Counts totals() {
        return TOTALS;
    }

    /** This owner's counts. */
    public Counts counts() {
        return own;
    }

    public void increment(Counter counter) {
        add(counter, 1);
    }

    public void add(Counter counter, long n) {
        own.add(counter, n);
        TOTALS.add(counter, n);
    }

    /** A stale write refused on {@code table}: counted in total and for the table. */
    public void staleWriteRefused(String table) {
        own.staleWriteRefused(table);
        TOTALS.staleWriteRefused(table);
    }
}
