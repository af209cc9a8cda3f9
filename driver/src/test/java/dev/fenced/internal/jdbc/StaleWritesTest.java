package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fenced.FencedSqlState;
import dev.fenced.StaleTokenException;
import dev.fenced.internal.metrics.Tracker;
import dev.fenced.internal.sql.StaleMarker;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which server errors become {@link StaleTokenException}: the tombstone check's marker under its own SQLSTATE,
 * wherever a batch nests it; nothing else, however much it looks like one.
 */
class StaleWritesTest {

    private static final Tracker TRACKER = new Tracker();

    private static SQLException tombstone(String message) {
        return new SQLException(message, FencedSqlState.TOMBSTONE_CHECK.code());
    }

    @Test
    void theTombstoneMarkerNamesTheRowTokenAndTable() {
        SQLException e = tombstone("ERROR: fenced-tombstone:42:public.totals\n  Where: PL/pgSQL function");
        StaleTokenException stale = assertInstanceOf(StaleTokenException.class, StaleWrites.translate(e, 7, TRACKER));
        assertEquals("public.totals", stale.table(), "the table runs to the end of the line");
        assertEquals(7, stale.token());
        assertEquals(42, stale.rowToken());
        assertSame(e, stale.getCause());
    }

    @Test
    void aMarkerInABatchsNextExceptionIsFound() {
        BatchUpdateException batch = new BatchUpdateException("Batch entry 0 was aborted", "08000", new int[0]);
        batch.setNextException(tombstone("ERROR: fenced-tombstone:9:t"));
        StaleTokenException stale =
                assertInstanceOf(StaleTokenException.class, StaleWrites.translate(batch, 3, TRACKER));
        assertEquals("t", stale.table());
        assertEquals(9, stale.rowToken());
        assertSame(batch, stale.getCause());
    }

    @Test
    void aMarkerInACauseIsFound() {
        SQLException outer = new SQLException("wrapped", "XX000", tombstone("fenced-tombstone:5:t"));
        assertInstanceOf(StaleTokenException.class, StaleWrites.translate(outer, 1, TRACKER));
    }

    @Test
    void theMarkerUnderAnotherSqlStateIsNotTrusted() {
        // data can put any text in a message; only the tombstone check raises its SQLSTATE
        SQLException e = new SQLException("fenced-tombstone:42:totals", "P0001");
        assertSame(e, StaleWrites.translate(e, 7, TRACKER));
    }

    @Test
    void malformedMarkersAreLeftAlone() {
        for (String message : new String[] {
            "fenced-tombstone::t",
            "fenced-tombstone:12",
            "fenced-tombstone:12x:t",
            "fenced-tombstone:" + "9".repeat(20) + ":t",
            "no marker here"
        }) {
            SQLException e = tombstone(message);
            assertSame(e, StaleWrites.translate(e, 7, TRACKER), message);
        }
    }

    @Test
    void aLaterWellFormedMarkerIsFoundAfterAMalformedOne() {
        SQLException e = tombstone("fenced-tombstone:x fenced-tombstone:8:t");
        assertEquals(
                8,
                assertInstanceOf(StaleTokenException.class, StaleWrites.translate(e, 2, TRACKER))
                        .rowToken());
    }

    @Test
    void theGuardsMarkerWithThisRuntimesNonceIsStaleUnderEitherSqlState() {
        String text = "\"fenced-stale:99:" + StaleMarker.nonce() + ":public.totals\"";
        for (String[] raised : new String[][] {
            {"invalid size: " + text, "22023"}, {"invalid input syntax for type boolean: " + text, "22P02"}
        }) {
            StaleTokenException stale = assertInstanceOf(
                    StaleTokenException.class,
                    StaleWrites.translate(new SQLException(raised[0], raised[1]), 7, TRACKER),
                    raised[1]);
            assertEquals("public.totals", stale.table());
            assertEquals(99, stale.rowToken());
        }
    }

    @Test
    void aGuardStyleErrorWithoutThisRuntimesMarkerIsNotStale() {
        // 22023/22P02 are also what ordinary bad input raises; without the guard's marker they stay as they are
        SQLException e = new SQLException("invalid input syntax for type boolean: \"maybe\"", "22P02");
        assertSame(e, StaleWrites.translate(e, 7, TRACKER));
        SQLException forged = new SQLException("invalid size: \"fenced-stale:99:nonce:totals\"", "22023");
        assertSame(
                forged,
                StaleWrites.translate(forged, 7, TRACKER),
                "a marker without this runtime's nonce is data, not the guard");
    }
}
