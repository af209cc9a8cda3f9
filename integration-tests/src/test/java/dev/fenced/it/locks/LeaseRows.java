package dev.fenced.it.locks;

import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The lease table as the database sees it, read behind the libraries' backs. */
final class LeaseRows {

    private LeaseRows() {}

    /** True if lease {@code name} is taken right now by the database clock. */
    static boolean isTaken(TestDatabase db, String name) {
        try (Connection c = db.rawConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT expires_at > now() FROM fenced_lease WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
