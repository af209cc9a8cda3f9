package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.LeaseManager;
import dev.fenced.Ticker;
import dev.fenced.internal.lease.LeaseSchema;
import dev.fenced.internal.lease.LeaseStore;
import dev.fenced.internal.lease.LeaseTableName;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 28: a grant's cost must not grow with the lease table. Every grant checks that its token exceeds every
 * token in the table ({@code max(token)}), and released rows stay, so the table holds every name ever granted.
 * Before, that check scanned the whole table on every grant (21 ms a grant at 100,000 rows in the benchmark). It
 * now reads the end of the token index, planned for the table's size at every grant: these tests count the rows
 * PostgreSQL read by sequential scans of the lease table around the grants ({@code pg_stat_user_tables}), with the
 * table's statistics those of a near-empty table (ANALYZE right after its creation, autovacuum off for it), so
 * that a plan cached while the table was small would be caught scanning it.
 */
@Tag("server-sensitive")
class LeaseGrantScaleIT {

    /** Released leases, far more than any grant may read: one scan of the table reads them all. */
    private static final int RELEASED = 20_000;
    /** Enough grants on one session for pgjdbc to server-prepare the grant and PostgreSQL to plan it generically. */
    private static final int WARM_UP_GRANTS = 15;

    private static final int MEASURED_GRANTS = 20;
    private static final long BUDGET = 30_000_000_000L;

    /** A database of each test's own: one lease table per database (a second one is refused). */
    private TestDatabase db;
    /** One connection: every grant runs in the same session, where a cached plan would be reused. */
    private HikariDataSource oneSession;

    @BeforeEach
    void setUp() {
        db = TestDatabase.create();
        oneSession = DataSources.pool(db, 1);
    }

    @AfterEach
    void tearDown() {
        FencedTestExtension.unbind();
        oneSession.close();
    }

    @Test
    void grantsDoNotScanALeaseTableFullOfReleasedRows() throws Exception {
        LeaseTableName table = LeaseTableName.parse("scale_lease");
        LeaseStore store = new LeaseStore(oneSession, table, true, "grant-scale");
        long last = grant(store, "warm-0"); // creates the table
        // the statistics of a near-empty table, and no autoanalyze to bring them up to date during the test
        db.execute("ALTER TABLE scale_lease SET (autovacuum_enabled = false)", "ANALYZE scale_lease");
        for (int i = 1; i <= WARM_UP_GRANTS; i++) {
            last = grant(store, "warm-" + i);
        }
        // tokens below every real one (those carry the WAL timeline, at least 1, above bit 43)
        db.execute("INSERT INTO scale_lease SELECT 'released-' || i, 'gone', i, now(), now(), '-infinity'"
                + " FROM generate_series(1, " + RELEASED + ") AS i");

        Counters before = counters("scale_lease");
        List<String> granted = new ArrayList<>();
        for (int i = 0; i < MEASURED_GRANTS; i++) {
            long token = grant(store, "measured-" + i);
            assertTrue(token > last, "tokens must grow: " + token + " after " + last);
            last = token;
            granted.add("measured-" + i);
        }
        Counters after = counters("scale_lease");
        long read = after.seqTupRead - before.seqTupRead;
        assertTrue(
                read < RELEASED,
                MEASURED_GRANTS + " grants read " + read + " rows by sequential scans of a table of " + RELEASED
                        + " released leases (" + (after.seqScan - before.seqScan) + " scans): each grant's check"
                        + " that its token exceeds every token granted must read the token index, not the table");

        // Renewals do not change token: the index on it leaves them HOT updates (no index entry, pruned in place).
        String[] names = granted.toArray(String[]::new);
        long[] tokens = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            tokens[i] = db.queryLong("SELECT token FROM scale_lease WHERE name = '" + names[i] + "'");
        }
        long[] ttls = new long[names.length];
        java.util.Arrays.fill(ttls, Duration.ofMinutes(30).toMillis());
        for (int round = 0; round < 5; round++) {
            assertEquals(
                    names.length,
                    store.renew("grant-scale-holder", names, tokens, ttls, BUDGET, Ticker.system())
                            .renewed()
                            .size());
        }
        Counters renewed = counters("scale_lease");
        long updates = renewed.updates - after.updates;
        long hot = renewed.hotUpdates - after.hotUpdates;
        assertEquals(5L * names.length, updates);
        assertTrue(hot >= updates * 9 / 10, hot + " of " + updates + " renewals were HOT updates");

        // The check still refuses a sequence reset mid-run, the table's tokens read from the index.
        db.execute("ALTER SEQUENCE scale_lease_token_seq RESTART WITH 1");
        SQLException e = assertThrows(SQLException.class, () -> grant(store, "after-reset"));
        assertTrue(e.getMessage().contains("not above the highest token already granted"), e.getMessage());
        assertEquals(0, db.queryLong("SELECT count(*) FROM scale_lease WHERE name = 'after-reset'"));
    }

    /** A table made before the script had the index gets it at the first grant, when fenced may create the store. */
    @Test
    void anExistingTableWithoutTheIndexGetsItWhenFencedMayCreateTheStore() throws Exception {
        db.execute(LeaseSchema.script(LeaseTableName.parse("old_lease")), "DROP INDEX old_lease_token_idx");
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (Watch watch = new Watch(warnings);
                LeaseManager leases =
                        LeaseManager.builder(oneSession).table("old_lease").build()) {
            assertTrue(leases.tryAcquire("a", Duration.ofSeconds(30)).isPresent());
        }
        assertEquals(1, db.queryLong("SELECT count(*) FROM pg_indexes WHERE indexname = 'old_lease_token_idx'"));
        assertTrue(warnings.isEmpty(), warnings::toString);
    }

    /**
     * With createTable=false the schema is the migrations': an old table without the index keeps working, and a
     * warning names the statement that adds it.
     */
    @Test
    void withoutCreateTableAnExistingTableWithoutTheIndexWorksAndIsWarnedAbout() throws Exception {
        db.execute(LeaseSchema.script(LeaseTableName.parse("kept_lease")), "DROP INDEX kept_lease_token_idx");
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (Watch watch = new Watch(warnings);
                LeaseManager leases = LeaseManager.builder(oneSession)
                        .table("kept_lease")
                        .createTable(false)
                        .build()) {
            assertTrue(leases.tryAcquire("a", Duration.ofSeconds(30)).isPresent());
            assertEquals(0, db.queryLong("SELECT count(*) FROM pg_indexes WHERE indexname = 'kept_lease_token_idx'"));
            assertEquals(1, warnings.size(), warnings::toString);
            assertTrue(
                    warnings.get(0)
                            .contains("CREATE INDEX IF NOT EXISTS \"kept_lease_token_idx\" ON \"public\".\"kept_lease\""
                                    + " (token)"),
                    warnings.get(0));
            // what the warning says, run by hand, is what the check looks for: no warning from the next store
            db.execute("CREATE INDEX kept_lease_token_idx ON kept_lease (token)");
        }
        warnings.clear();
        try (Watch watch = new Watch(warnings);
                LeaseManager leases = LeaseManager.builder(oneSession)
                        .table("kept_lease")
                        .createTable(false)
                        .build()) {
            assertTrue(leases.tryAcquire("b", Duration.ofSeconds(30)).isPresent());
            assertTrue(warnings.isEmpty(), warnings::toString);
        }
    }

    private long grant(LeaseStore store, String name) throws SQLException {
        LeaseStore.Grant g =
                store.grant(name, "grant-scale-holder", Duration.ofMinutes(30).toMillis(), BUDGET, Ticker.system());
        assertNotNull(g, name + " is free and must be granted");
        return g.token();
    }

    private record Counters(long seqScan, long seqTupRead, long updates, long hotUpdates) {}

    /**
     * The table's counters, after the one session's pending statistics are flushed: a backend reports them at most
     * once a second otherwise, so a read could miss the scans it just made.
     */
    private Counters counters(String table) throws SQLException {
        try (Connection c = oneSession.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_force_next_flush()");
        }
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT seq_scan, seq_tup_read, n_tup_upd, n_tup_hot_upd"
                        + " FROM pg_stat_user_tables WHERE relid = '" + table + "'::regclass")) {
            assertTrue(rs.next());
            return new Counters(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
        }
    }

    /** Collects the warnings fenced logs about the lease store while open. */
    private static final class Watch implements AutoCloseable {
        private static final Logger LEASE_LOG = Logger.getLogger("dev.fenced.lease");
        private final Handler handler;

        Watch(List<String> into) {
            handler = new Handler() {
                @Override
                public void publish(LogRecord record) {
                    if (record.getLevel().intValue() >= Level.WARNING.intValue()
                            && record.getMessage().contains("index")) {
                        into.add(record.getMessage());
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };
            LEASE_LOG.addHandler(handler);
        }

        @Override
        public void close() {
            LEASE_LOG.removeHandler(handler);
        }
    }
}
