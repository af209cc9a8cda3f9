package dev.fenced.it.ha;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The holder of the primary's last lease, waking from a pause that outlasted the failover and never having learnt
 * that its lease was lost (its own process did not run meanwhile, so nothing in it poisoned the token): it writes the
 * protected row under its old token through the multi-host URL, which now leads to the new primary. Says {@code landed}
 * or {@code refused <exception> <SQLState>} on stdout. Arguments: the fenced data URL, the token.
 */
public final class StaleWriterMain {

    private StaleWriterMain() {}

    public static void main(String[] args) {
        String url = args[0];
        long token = Long.parseLong(args[1]);
        try (FencingScope ignored = Fencing.bind(token);
                Connection c = DriverManager.getConnection(url);
                PreparedStatement ps = c.prepareStatement("UPDATE job SET val = -1 WHERE id = 1")) {
            int n = ps.executeUpdate();
            System.out.println(n == 1 ? "landed" : "refused nothing-updated -");
        } catch (SQLException e) {
            System.out.println("refused " + e.getClass().getSimpleName() + " " + e.getSQLState());
        }
        System.out.flush();
    }
}
