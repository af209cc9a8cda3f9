package dev.fenced.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One restaurant's night, shown concretely: what its total should be (the sum of the orders its newest holder
 * counted), what the table holds, and each holder with its token on a time line. Picked to show the mode's point:
 * under a lease alone a restaurant whose total a frozen holder overwrote; under fenced one whose frozen holder
 * was refused.
 */
record Incident(Options.Mode mode, int restaurant, long expected, long actual, List<Holder> holders) {

    /** One holder of the restaurant's lease, times in epoch milliseconds as the workers recorded them. */
    record Holder(
            long token,
            String worker,
            long acquired,
            Long pauseFrom,
            Long pauseTo,
            Long writeAt,
            long ended,
            String outcome,
            String freeze,
            long amount) {

        boolean frozen() {
            return pauseFrom != null;
        }
    }

    /**
     * Restaurants whose frozen holder tried to write after a newer holder had written: first one whose total is
     * wrong, then one the database refused.
     */
    private static final String PICK = "SELECT a.restaurant_id FROM runs a JOIN totals t USING (restaurant_id)"
            + " WHERE a.paused AND a.write_at IS NOT NULL AND EXISTS (SELECT 1 FROM runs b"
            + " WHERE b.restaurant_id = a.restaurant_id AND b.token > a.token AND b.outcome = 'written'"
            + " AND b.write_at <= a.write_at)"
            + " ORDER BY (a.outcome = 'written' AND t.amount <> (SELECT b.amount FROM runs b"
            + " WHERE b.restaurant_id = a.restaurant_id AND b.outcome = 'written' ORDER BY b.token DESC LIMIT 1)) DESC,"
            + " (a.outcome = 'refused-stale') DESC,"
            // a refused write that would have changed the total shows what was saved
            + " (a.amount <> (SELECT b.amount FROM runs b WHERE b.restaurant_id = a.restaurant_id"
            + " AND b.outcome = 'written' ORDER BY b.token DESC LIMIT 1)) DESC,"
            // then the clearest picture: the stale write well after the newer one, not on top of it
            + " a.write_at - (SELECT max(b.write_at) FROM runs b WHERE b.restaurant_id = a.restaurant_id"
            + " AND b.token > a.token AND b.outcome = 'written' AND b.write_at <= a.write_at) DESC, a.token LIMIT 1";

    /** The incident of this mode's night, or null when no frozen holder met a newer holder's write. */
    static Incident find(Connection c, Options.Mode mode) throws SQLException {
        Integer restaurant = null;
        try (PreparedStatement ps = c.prepareStatement(PICK);
                ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                restaurant = rs.getInt(1);
            }
        }
        return restaurant == null ? null : load(c, mode, restaurant);
    }

    private static Incident load(Connection c, Options.Mode mode, int restaurant) throws SQLException {
        List<Holder> holders = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT token, worker, acquired_at, pause_from, pause_to,"
                + " write_at, ended_at, outcome, freeze_kind, coalesce(amount, 0) FROM runs WHERE restaurant_id = ?"
                + " ORDER BY token")) {
            ps.setInt(1, restaurant);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    holders.add(new Holder(
                            rs.getLong(1),
                            rs.getString(2),
                            rs.getLong(3),
                            (Long) rs.getObject(4),
                            (Long) rs.getObject(5),
                            (Long) rs.getObject(6),
                            rs.getLong(7),
                            rs.getString(8),
                            rs.getString(9),
                            rs.getLong(10)));
                }
            }
        }
        long expected;
        long actual;
        // the truth, as the audit counts it: the orders the newest writing holder had counted
        try (PreparedStatement ps =
                c.prepareStatement("SELECT t.amount, (SELECT coalesce(sum(o.amount), 0) FROM orders o"
                        + " WHERE o.restaurant_id = t.restaurant_id AND o.id <= (SELECT a.as_of_order FROM runs a"
                        + " WHERE a.restaurant_id = t.restaurant_id AND a.outcome = 'written' ORDER BY a.token DESC LIMIT 1))"
                        + " FROM totals t WHERE t.restaurant_id = ?")) {
            ps.setInt(1, restaurant);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                actual = rs.getLong(1);
                expected = rs.getLong(2);
            }
        }
        return new Incident(mode, restaurant, expected, actual, List.copyOf(holders));
    }

    boolean wrong() {
        return expected != actual;
    }

    long start() {
        return holders.stream().mapToLong(Holder::acquired).min().orElse(0);
    }

    /** When the holder after this one was granted the lease: the database's own answer to "when did it expire". */
    Holder successor(Holder h) {
        int i = holders.indexOf(h);
        return i + 1 < holders.size() ? holders.get(i + 1) : null;
    }

    /** The headline: which restaurant, what it should hold, what it holds. */
    String headline() {
        return String.format(
                Locale.ROOT,
                "restaurant %d should total %s (the sum of its orders); the table holds %s%s",
                restaurant,
                money(expected),
                money(actual),
                wrong() ? ": WRONG by " + money(Math.abs(expected - actual)) : ": right");
    }

    /** The story as lines of a time line, times in the article's seconds since the first holder took the lease. */
    List<String> story(Options o) {
        record Event(long at, int order, String text) {}
        List<Event> events = new ArrayList<>();
        for (Holder h : holders) {
            String who = h.worker + " (token " + h.token + ")";
            events.add(new Event(h.acquired, 0, who + " takes the lease and counts the orders: " + money(h.amount)));
            if (h.frozen()) {
                events.add(new Event(
                        h.pauseFrom,
                        1,
                        "in-flight".equals(h.freeze)
                                ? h.worker + " sends its write of " + money(h.amount)
                                        + "; the network holds it (stalled network)"
                                : h.worker + " checks its lease (still valid) and freezes before writing (GC pause)"));
                Holder next = successor(h);
                if (next != null) {
                    events.add(new Event(
                            next.acquired - 1,
                            0,
                            h.worker + "'s lease expires while it is frozen; " + next.worker + " is granted it"));
                }
            }
            if (h.writeAt != null) {
                events.add(new Event(h.writeAt, 2, h.worker + " " + writeOutcome(h)));
            }
        }
        events.sort(Comparator.comparingLong(Event::at).thenComparingInt(Event::order));
        long t0 = start();
        double second = o.articleSecond.toMillis();
        List<String> lines = new ArrayList<>();
        for (Event e : events) {
            lines.add(String.format(Locale.ROOT, "%5.0f s  %s", (e.at - t0) / second, e.text));
        }
        return lines;
    }

    /** What became of a holder's write, in words. */
    String writeOutcome(Holder h) {
        return switch (h.outcome) {
            case "written" ->
                h.frozen()
                        ? "wakes and writes " + money(h.amount) + " over the newer total: the write LANDS"
                        : "writes " + money(h.amount);
            case "refused-stale" ->
                "wakes and writes " + money(h.amount) + " with token " + h.token
                        + ": REFUSED by the database, the row already holds a newer token";
            case "refused-lost" ->
                "wakes, and fenced refuses its write of " + money(h.amount)
                        + " before sending it: the lease is known lost";
            default -> h.outcome;
        };
    }

    static String money(long cents) {
        return String.format(Locale.ROOT, "%,d", cents);
    }
}
