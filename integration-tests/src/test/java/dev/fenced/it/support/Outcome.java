package dev.fenced.it.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** How one statement ended, as the attack tests compare raw pgjdbc and fenced: null, or the error that ended it. */
public final class Outcome {

    private Outcome() {}

    /**
     * Runs {@code sql} on {@code c}, prepared or plain: null when it ran, else the error's class, SQLState and
     * message ({@code UnsupportedStatementException:FN003:...}), so that a refusal and a server error read apart.
     */
    public static String of(Connection c, String sql, boolean prepared) {
        try {
            if (prepared) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.execute();
                }
            } else {
                try (Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            }
            return null;
        } catch (SQLException e) {
            return e.getClass().getSimpleName() + ":" + e.getSQLState() + ":" + e.getMessage();
        }
    }
}
