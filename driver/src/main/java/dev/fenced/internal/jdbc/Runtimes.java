package dev.fenced.internal.jdbc;

import dev.fenced.Ticker;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.metrics.Counts;
import dev.fenced.internal.metrics.Tracker;
import dev.fenced.internal.observe.Inventory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The runtimes of one owner, one per database (and user) and configuration: a {@code FencedDataSource}'s, a
 * fenced-in-place pool's ({@link WrappingDataSource}, which the Spring starter uses), or the driver's for
 * connections opened through {@code DriverManager}. A DataSource's runtimes live and go with it, and count in
 * one {@link Tracker} of its own.
 *
 * <p>The driver has no owner to go with, so its runtimes are kept in a bounded map, least recently connected
 * first out ({@link #DRIVER_RUNTIMES}): an application that connects with ever new URLs or settings does not
 * grow it without end. A runtime that leaves the map is still the runtime of the connections opened with it;
 * the next connect with its URL and settings builds a new one, which reads the catalog again, as a first
 * connect does. Each driver runtime counts in a tracker of its own.
 */
public final class Runtimes {

    /** How many (database, configuration) runtimes the driver keeps for DriverManager connections. */
    static final int DRIVER_RUNTIMES = 64;

    private static final Runtimes DRIVER = new Runtimes(null, DRIVER_RUNTIMES, Ticker.system());

    /** The owner's tracker, which all its runtimes count in; null for the driver's: a tracker per runtime. */
    private final @Nullable Tracker tracker;

    private final Ticker ticker;
    /** Access order, bounded: guarded by itself. */
    private final Map<String, FencedRuntime> byId;

    Runtimes(@Nullable Tracker tracker, int capacity, Ticker ticker) {
        this.tracker = tracker;
        this.ticker = ticker;
        this.byId = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, FencedRuntime> eldest) {
                return size() > capacity;
            }
        };
    }

    /** The runtimes of one DataSource, counting in one tracker; as many as it has users and settings. */
    public static Runtimes ofDataSource() {
        return new Runtimes(new Tracker(), Integer.MAX_VALUE, Ticker.system());
    }

    /** The driver's, for connections opened from a URL with no DataSource of fenced's around them. */
    static Runtimes driver() {
        return DRIVER;
    }

    /**
     * The runtime for {@code config} on the database {@code key} names, built on first use with
     * {@code connection} (a raw connection to that database) for the catalog check. A failed check is not
     * remembered: the next connect checks again. {@code opener} opens a raw connection of the runtime's own for
     * the event trigger's notices (null when fenced may not open one: a pool fenced in place).
     */
    FencedRuntime forDatabase(
            String key, FencedConfig config, Connection connection, DdlListener.@Nullable Opener opener)
            throws SQLException {
        String id = key + '\u0000' + config.fingerprint();
        FencedRuntime runtime;
        synchronized (byId) {
            runtime = byId.get(id);
        }
        if (runtime != null) {
            return runtime;
        }
        // read outside the lock: a catalog read is a round trip, and connects to other databases must not wait
        runtime = FencedRuntime.build(config, connection, tracker != null ? tracker : new Tracker(), ticker);
        FencedRuntime raced;
        synchronized (byId) {
            raced = byId.putIfAbsent(id, runtime);
        }
        if (raced == null) {
            Inventory.get().register(config);
            runtime.listenForDdl(opener, key);
        }
        return raced != null ? raced : runtime;
    }

    /** What this DataSource's runtimes counted (the driver's runtimes each count on their own). */
    public Counts counts() {
        if (tracker == null) {
            throw new IllegalStateException("fenced: the driver's runtimes have no counts in common");
        }
        return tracker.counts();
    }
}
