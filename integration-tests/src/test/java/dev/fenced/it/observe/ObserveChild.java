package dev.fenced.it.observe;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** A JVM that writes once without a token in observe mode and exits: its inventory report is written at exit. */
public final class ObserveChild {

    private ObserveChild() {}

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0]);
                Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM inv_totals WHERE id = 10000");
        }
    }
}
