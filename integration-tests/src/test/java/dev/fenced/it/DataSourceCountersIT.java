package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fenced.FencedDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Two DataSources on two databases keep counters of their own, and the totals ({@link FencedStats#counters()},
 * JMX, Micrometer) are their sum.
 */
class DataSourceCountersIT {

    private static final String STALE = "fenced.writes.stale";
    private static final String FENCED = "fenced.writes.fenced";

    @Test
    void eachDataSourceCountsItsOwnWritesAndTheTotalsCountThemAll() throws Exception {
        TestDatabase first = TestDatabase.create();
        TestDatabase second = TestDatabase.create();
        for (TestDatabase db : new TestDatabase[] {first, second}) {
            db.execute(
                    "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                    "INSERT INTO totals VALUES (1, 0, 50)");
        }
        FencedDataSource named = new FencedDataSource(first.fencedUrl("fenced.tables=totals"));
        PGSimpleDataSource raw = new PGSimpleDataSource();
        raw.setURL(second.rawUrl());
        Properties keys = new Properties();
        keys.setProperty("fenced.tables", "totals");
        DataSource inPlace = FencedDataSource.wrap(raw, keys);
        Map<String, Long> totalsBefore = FencedStats.counters();

        assertEquals(0, FencedStats.counters(named).get(STALE), "nothing counted before its first connect");
        write(named, 49); // stale
        write(named, 51);
        write(inPlace, 52);
        write(inPlace, 53);

        assertEquals(1, FencedStats.counters(named).get(STALE));
        assertEquals(1, FencedStats.counters(named).get(FENCED), "a refused write is not counted as sent");
        assertEquals(0, FencedStats.counters(inPlace).get(STALE));
        assertEquals(2, FencedStats.counters(inPlace).get(FENCED));
        assertEquals(totalsBefore.get(STALE) + 1, FencedStats.counters().get(STALE));
        assertEquals(totalsBefore.get(FENCED) + 3, FencedStats.counters().get(FENCED));
        assertThrows(IllegalArgumentException.class, () -> FencedStats.counters(raw));
    }

    private static void write(DataSource ds, long token) throws Exception {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(token)) {
            if (token == 49) {
                assertThrows(StaleTokenException.class, () -> s.executeUpdate("UPDATE totals SET amount = 1"));
            } else {
                assertEquals(1, s.executeUpdate("UPDATE totals SET amount = " + token));
            }
        }
    }
}
