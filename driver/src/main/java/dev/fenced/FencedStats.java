package dev.fenced;

import dev.fenced.internal.jdbc.ConnectionFactory;
import dev.fenced.internal.jdbc.Runtimes;
import dev.fenced.internal.metrics.Tracker;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * fenced's counters, read in code: the totals of this class loader, over every DataSource, driver connection and
 * lease manager (each also keeps its own). The same numbers are published over JMX ({@code dev.fenced:type=Metrics})
 * and, when Micrometer is on the class path, as {@code fenced.*} meters in its global registry.
 */
public final class FencedStats {

    private FencedStats() {}

    /** Every counter by name: {@code fenced.writes.fenced}, {@code fenced.writes.stale}, ... */
    public static Map<String, Long> counters() {
        return Tracker.totals().counters();
    }

    /**
     * The counters of one fenced DataSource alone, by the same names: a {@link FencedDataSource}, a pool fenced in
     * place ({@link FencedDataSource#wrap}), or a DataSource that unwraps to either. Lease counters are not among
     * them (a {@link LeaseManager} counts on its own, into the totals).
     *
     * @throws IllegalArgumentException if {@code dataSource} is not fenced by one of those
     */
    public static Map<String, Long> counters(DataSource dataSource) throws SQLException {
        Runtimes runtimes = dataSource instanceof FencedDataSource f
                ? f.runtimes()
                : dataSource.isWrapperFor(FencedDataSource.class)
                        ? dataSource.unwrap(FencedDataSource.class).runtimes()
                        : ConnectionFactory.runtimesOf(dataSource);
        if (runtimes == null) {
            throw new IllegalArgumentException("fenced: " + dataSource + " is not a fenced DataSource");
        }
        return runtimes.counts().counters();
    }

    /** Stale writes refused, by protected table. */
    public static Map<String, Long> staleWritesByTable() {
        return Tracker.totals().staleByTable();
    }
}
