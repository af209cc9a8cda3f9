package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.fenced.StaleTokenException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Reading a table behind fenced's back, and finding fenced's exception inside a library's. */
final class Rows {

    private Rows() {}

    /** {@code id:amount:token} for every row of {@code totals}, by id: a whole-table snapshot to compare. */
    static String totals(TestDatabase db) {
        return snapshot(db, "SELECT restaurant_id, amount, last_token FROM totals ORDER BY restaurant_id");
    }

    /** Each row of {@code sql} as its columns joined by ':' (NULL as "null"), rows joined by ','. */
    static String snapshot(TestDatabase db, String sql) {
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> rows = new ArrayList<>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    if (i > 1) {
                        b.append(':');
                    }
                    b.append(rs.getString(i));
                }
                rows.add(b.toString());
            }
            return String.join(",", rows);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The last_token of one totals row. */
    static long token(TestDatabase db, int id) {
        return db.queryLong("SELECT last_token FROM totals WHERE restaurant_id = " + id);
    }

    static long amount(TestDatabase db, int id) {
        return db.queryLong("SELECT amount FROM totals WHERE restaurant_id = " + id);
    }

    /** The first {@code type} among {@code thrown}, its causes and next exceptions, or null. */
    static <T extends Throwable> T find(Throwable thrown, Class<T> type) {
        java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        if (thrown != null) {
            todo.add(thrown);
        }
        while (!todo.isEmpty()) {
            Throwable t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            if (t instanceof SQLException s && s.getNextException() != null) {
                todo.add(s.getNextException());
            }
        }
        return null;
    }

    /** The StaleTokenException a library wrapped; fails when there is none. */
    static StaleTokenException stale(Throwable thrown) {
        StaleTokenException stale = find(thrown, StaleTokenException.class);
        assertNotNull(stale, () -> "no StaleTokenException in the cause chain of " + chain(thrown));
        return stale;
    }

    /** The chain as class names and messages, for failure messages and reports. */
    static String chain(Throwable thrown) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = thrown; t != null; t = next(t)) {
            b.append("\n  ").append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        return b.toString();
    }

    private static Throwable next(Throwable t) {
        return t.getCause() == t ? null : t.getCause();
    }
}
