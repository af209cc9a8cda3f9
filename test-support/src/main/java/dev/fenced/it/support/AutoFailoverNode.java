package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One process of an {@link AutoFailoverCluster} ({@link HaNode}): {@code pg_autoctl run} (Debian's
 * {@code postgresql-15-auto-failover}, run as the postgres user) and the PostgreSQL 15 postmaster it manages, for the
 * monitor or a data node, PostgreSQL on a free 127.0.0.1 port ({@code --listen 127.0.0.1}: pg_autoctl's default is
 * every interface), data directory and log under the cluster's folder.
 */
public final class AutoFailoverNode extends HaNode {

    private final Map<String, String> environment;

    private AutoFailoverNode(String name, Path dir, int pgPort, Map<String, String> environment) {
        super(name, dir, pgPort, "pg_autoctl.log");
        this.environment = environment;
    }

    /** Process {@code name}, its files in {@code root/name}, on a free port; not created. */
    static AutoFailoverNode create(String name, Path root, Map<String, String> environment) throws IOException {
        return new AutoFailoverNode(name, root.resolve(name), freePort(), environment);
    }

    /** {@code pg_autoctl <arguments>} as the postgres user, run to its end (60 s at most); its output. */
    String autoctl(String... arguments) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "env"));
        environment.forEach((k, v) -> command.add(k + "=" + v));
        command.add(AutoFailoverCluster.PG_AUTOCTL.toString());
        command.addAll(List.of(arguments));
        return HaCluster.run(command.toArray(String[]::new));
    }

    /**
     * Starts {@code pg_autoctl run} on the node's data directory, in the background: it starts PostgreSQL and, for a
     * data node, its keeper, which follows the monitor's orders (clone, catch up, promote, demote, rejoin by
     * {@code pg_rewind}).
     */
    void launch() throws IOException {
        launchAsPostgres(
                List.of(
                        AutoFailoverCluster.PG_AUTOCTL.toString(),
                        "run",
                        "--pgdata",
                        dataDir().toString()),
                environment);
    }

    /** The node's timeline: the WAL insert position's on a primary, the received WAL's on a standby. */
    public long timeline() throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CASE WHEN pg_is_in_recovery()"
                        + " THEN (SELECT received_tli FROM pg_stat_wal_receiver)"
                        + " ELSE ('x' || substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8))::bit(32)::int"
                        + " END")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
