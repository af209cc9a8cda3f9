package dev.fenced.internal.cli;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The server facts a roll-out needs: primary or standby, synchronous_commit, replication. */
final class ServerCheck {

    private ServerCheck() {}

    static List<Finding> read(Connection c) throws SQLException {
        List<Finding> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT pg_catalog.pg_is_in_recovery(), pg_catalog.current_setting('server_version'),"
                                + " pg_catalog.current_setting('synchronous_commit'), pg_catalog.current_setting('synchronous_standby_names'),"
                                + " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_replication),"
                                + " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_replication WHERE sync_state OPERATOR(pg_catalog.=) 'sync' OR sync_state OPERATOR(pg_catalog.=) 'quorum'),"
                                + " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_replication WHERE sync_state IS NULL)")) {
            rs.next();
            boolean standby = rs.getBoolean(1);
            String version = rs.getString(2);
            String syncCommit = rs.getString(3);
            String syncNames = rs.getString(4);
            long standbys = rs.getLong(5);
            long sync = rs.getLong(6);
            long hidden = rs.getLong(7);
            if (standby) {
                out.add(Finding.missing(
                        "standby (in recovery), PostgreSQL " + version + ": fenced's lease store"
                                + " refuses to grant tokens here and writes fail; writers and leases must use the primary, and"
                                + " check must run against it (a standby's synchronous_commit and replication are not the ones"
                                + " writes meet)",
                        null));
            } else {
                out.add(Finding.ok("primary, PostgreSQL " + version));
            }
            if (syncCommit.equals("off") || syncCommit.equals("local") && !syncNames.isBlank()) {
                out.add(Finding.warn("synchronous_commit = " + syncCommit + ": an acknowledged write (and the token"
                        + " it set) can be lost in a crash or failover; token grants stay durable (fenced commits"
                        + " them synchronously), so tokens still only grow"));
            } else {
                out.add(Finding.info("synchronous_commit = " + syncCommit));
            }
            String names = syncNames.isBlank()
                    ? "synchronous_standby_names is empty"
                    : "synchronous_standby_names = '" + syncNames + "'";
            if (standbys == 0) {
                out.add(Finding.info("replication: no standby connected (" + names + ")"));
            } else if (hidden == standbys) {
                out.add(Finding.info("replication: " + standbys + " standby(s) connected; their sync state needs"
                        + " pg_read_all_stats to see (" + names + ")"));
            } else if (sync > 0) {
                out.add(Finding.info(
                        "replication: " + standbys + " standby(s), " + sync + " synchronous (" + names + ")"));
            } else {
                out.add(Finding.warn("replication: " + standbys + " standby(s), all asynchronous (" + names + "): after"
                        + " a failover the newest writes may be missing; tokens still only grow (a promoted standby"
                        + " continues the sequence)"));
            }
        }
        return out;
    }
}
