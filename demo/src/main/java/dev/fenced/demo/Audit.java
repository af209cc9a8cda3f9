package dev.fenced.demo;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Counts one mode's night from what the holders wrote in {@code runs}, and checks the damage against the
 * orders: a total is wrong when it is not the sum of the orders the newest holder counted (the newest
 * holder of a restaurant is the one with the highest token that wrote; its count is the truth, as the
 * orders it read were all there was when it ran).
 */
final class Audit {

    private Audit() {}

    /** A stale attempt: a write by a holder whose restaurant had already been granted to a newer token. */
    private static final String STALE = "a.write_at IS NOT NULL AND EXISTS (SELECT 1 FROM runs b"
            + " WHERE b.restaurant_id = a.restaurant_id AND b.token > a.token AND b.acquired_at <= a.write_at)";

    static ModeResult count(Connection c, Options.Mode mode) throws SQLException {
        ModeResult r = new ModeResult(mode);
        r.runs = one(c, "SELECT count(*) FROM runs");
        r.slowRuns = one(c, "SELECT count(*) FROM runs WHERE slow");
        r.pauses = one(c, "SELECT count(*) FROM runs WHERE paused");
        r.inFlight = one(c, "SELECT count(*) FROM runs WHERE freeze_kind = 'in-flight'");
        r.secondHolder = one(
                c,
                "SELECT count(*) FROM (SELECT restaurant_id FROM runs GROUP BY restaurant_id"
                        + " HAVING count(*) > 1) x");
        r.staleAttempted = one(c, "SELECT count(*) FROM runs a WHERE " + STALE);
        r.staleRefusedByDatabase =
                one(c, "SELECT count(*) FROM runs a WHERE " + STALE + " AND outcome = 'refused-stale'");
        r.staleRefusedBeforeSending =
                one(c, "SELECT count(*) FROM runs a WHERE " + STALE + " AND outcome = 'refused-lost'");
        // landed before the newer holder wrote: harmless, as that holder then wrote its whole new value
        r.staleLandedHarmlessly = one(
                c,
                "SELECT count(*) FROM runs a WHERE " + STALE + " AND outcome = 'written'"
                        + " AND EXISTS (SELECT 1 FROM runs b WHERE b.restaurant_id = a.restaurant_id AND b.token > a.token"
                        + " AND b.outcome = 'written' AND b.write_at >= a.write_at)");
        r.gaveUp = one(c, "SELECT count(*) FROM runs WHERE outcome = 'gave-up'");
        r.wrongTotals = one(c, wrong("totals"));
        r.lostOrders = one(
                c,
                "SELECT coalesce(sum(lost), 0) FROM (SELECT (SELECT count(*) FROM orders o"
                        + " WHERE o.restaurant_id = t.restaurant_id AND o.id > t.as_of_order AND o.id <= newest.as_of_order) lost"
                        + " FROM totals t JOIN LATERAL (SELECT as_of_order FROM runs a WHERE a.restaurant_id = t.restaurant_id"
                        + " AND a.outcome = 'written' ORDER BY a.token DESC LIMIT 1) newest ON true) x");
        r.unrun = one(
                c,
                "SELECT count(*) FROM totals t WHERE NOT EXISTS (SELECT 1 FROM done d"
                        + " WHERE d.restaurant_id = t.restaurant_id)");
        return r;
    }

    /** Rows of {@code table} whose amount is not the sum of the orders its newest writer counted. */
    private static String wrong(String table) {
        return "SELECT count(*) FROM " + table + " t JOIN LATERAL (SELECT as_of_order FROM runs a"
                + " WHERE a.restaurant_id = t.restaurant_id AND a.outcome = 'written' ORDER BY a.token DESC LIMIT 1) newest"
                + " ON true WHERE t.amount <> (SELECT coalesce(sum(o.amount), 0) FROM orders o"
                + " WHERE o.restaurant_id = t.restaurant_id AND o.id <= newest.as_of_order)";
    }

    /**
     * Ledger rows (in the second database) left wrong, judged as totals are: the ledger is copied into a temp table
     * beside the orders and runs it is checked against.
     */
    static long wrongLedger(Connection orders, Connection ledger) throws SQLException {
        try (Statement s = orders.createStatement()) {
            s.execute("CREATE TEMP TABLE ledger_copy (restaurant_id int PRIMARY KEY, amount bigint NOT NULL)");
        }
        try (Statement read = ledger.createStatement();
                ResultSet rs = read.executeQuery("SELECT restaurant_id, amount FROM ledger");
                java.sql.PreparedStatement copy = orders.prepareStatement("INSERT INTO ledger_copy VALUES (?, ?)")) {
            while (rs.next()) {
                copy.setInt(1, rs.getInt(1));
                copy.setLong(2, rs.getLong(2));
                copy.addBatch();
            }
            copy.executeBatch();
        }
        return one(orders, wrong("ledger_copy"));
    }

    private static long one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
