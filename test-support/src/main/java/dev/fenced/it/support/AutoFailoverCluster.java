package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL HA as teams run it, the other way: pg_auto_failover 2.0 (Debian's {@code postgresql-15-auto-failover}), a
 * monitor (a PostgreSQL of its own, holding the cluster's state machine) and data nodes, each a {@code pg_autoctl run}
 * (the keeper) with its PostgreSQL 15, all run as the postgres user on free 127.0.0.1 ports ({@code --listen
 * 127.0.0.1}, {@code --hostname 127.0.0.1}, trust authentication, no TLS), files under one temporary folder owned by
 * postgres (pg_autoctl keeps its configuration and state under {@code XDG_CONFIG_HOME} and {@code XDG_DATA_HOME}: both
 * there too). The first node is initialised by hand ({@code initdb}: pg_autoctl would size {@code shared_buffers}
 * after the machine's memory, gigabytes; {@code postgresql.auto.conf} overrides it, and the clones copy it) and becomes
 * the primary; the next are cloned from it.
 *
 * <p>pg_auto_failover's own default is synchronous: with {@code --replication-quorum true} (the default) a standby is
 * in the primary's {@code synchronous_standby_names} ({@code ANY 1 (...)}) and a commit waits for it; when it fails,
 * the monitor turns the primary into {@code wait_primary}, which commits alone. {@link Options#synchronous} false
 * creates every node with {@code --replication-quorum false}: asynchronous streaming.
 */
public final class AutoFailoverCluster extends HaCluster<AutoFailoverNode> {

    static final Path PG_AUTOCTL = Path.of("/usr/bin/pg_autoctl");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final String SERVER_SETTINGS = "shared_buffers = '32MB'\nmax_connections = 100\n";

    /**
     * Whether commits wait for a standby ({@code --replication-quorum}), and pg_auto_failover's timing: the monitor's
     * health checks ({@code pgautofailover.health_check_*}), how long a node may go without reporting before it is
     * unhealthy ({@code node_considered_unhealthy_timeout}), how long the monitor waits for a failed primary to demote
     * before it promotes a standby ({@code primary_demote_timeout}), and, on each keeper, how long a primary cut off
     * from the monitor and its standbys goes on before it demotes itself ({@code timeout.network_partition_timeout},
     * which must stay below the demote timeout: that is what keeps the old primary from writing once a standby is
     * promoted) and how long a standby may take to catch up before promotion ({@code
     * timeout.prepare_promotion_catchup}). Empty: pg_auto_failover's default.
     */
    public record Options(
            boolean synchronous,
            Optional<Integer> healthCheckMs,
            Optional<Integer> unhealthyAfterMs,
            Optional<Integer> primaryDemoteTimeoutMs,
            Optional<Integer> networkPartitionTimeoutS,
            Optional<Integer> catchupTimeoutS) {

        /**
         * pg_auto_failover's defaults: health checks every 5 s (timeout 5 s, 2 retries 2 s apart), unhealthy after
         * 20 s without a report, primary demote timeout 30 s, network partition timeout 20 s, catch-up 30 s.
         */
        public static Options defaults(boolean synchronous) {
            return new Options(
                    synchronous,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty());
        }

        /**
         * Shortened: health checks every second (timeout 1 s, 1 retry after 0.5 s), unhealthy after 3 s, primary
         * demote timeout 6 s, network partition timeout 3 s (below the demote timeout, as it must be), catch-up 5 s.
         */
        public static Options fast(boolean synchronous) {
            return new Options(
                    synchronous,
                    Optional.of(1000),
                    Optional.of(3000),
                    Optional.of(6000),
                    Optional.of(3),
                    Optional.of(5));
        }

        public Options {
            if (networkPartitionTimeoutS.orElse(20) * 1000 >= primaryDemoteTimeoutMs.orElse(30_000)) {
                throw new IllegalArgumentException("a cut-off primary must demote itself before the monitor gives up "
                        + "waiting for it: network partition timeout < primary demote timeout: " + this);
            }
        }

        /** The monitor's settings, for its {@code postgresql.auto.conf}. */
        String monitorSettings() {
            StringBuilder s = new StringBuilder();
            healthCheckMs.ifPresent(ms -> s.append("pgautofailover.health_check_period = ")
                    .append(ms)
                    .append("\npgautofailover.health_check_timeout = ")
                    .append(ms)
                    .append("\npgautofailover.health_check_max_retries = 1")
                    .append("\npgautofailover.health_check_retry_delay = ")
                    .append(ms / 2)
                    .append('\n'));
            unhealthyAfterMs.ifPresent(ms -> s.append("pgautofailover.node_considered_unhealthy_timeout = ")
                    .append(ms)
                    .append('\n'));
            primaryDemoteTimeoutMs.ifPresent(ms -> s.append("pgautofailover.primary_demote_timeout = ")
                    .append(ms)
                    .append('\n'));
            return s.toString();
        }
    }

    private final Options options;
    private final AutoFailoverNode monitor;

    private AutoFailoverCluster(Path root, Options options, AutoFailoverNode monitor, List<AutoFailoverNode> nodes) {
        super(root, nodes);
        this.options = options;
        this.monitor = monitor;
    }

    /** Whether pg_autoctl and the PostgreSQL 15 binaries are installed ({@code postgresql-15-auto-failover}). */
    public static boolean binariesPresent() {
        return Files.isExecutable(PG_AUTOCTL) && Files.isExecutable(HaNode.PG_BIN.resolve("postgres"));
    }

    /**
     * Starts the monitor and {@code size} data nodes {@code name-0 ...}: the first becomes the primary, each next one
     * is cloned and streams from it. 120 s at most per step.
     *
     * @throws IllegalStateException with the processes' logs if they did not get there
     */
    public static AutoFailoverCluster start(String name, Options options, int size)
            throws IOException, InterruptedException {
        Path root = Files.createTempDirectory("fenced-autofailover-" + name);
        // pg_autoctl's files (configuration, state, sockets) under root, not the postgres user's home
        Map<String, String> env = new HashMap<>();
        env.put("HOME", root.toString());
        env.put("XDG_CONFIG_HOME", root.resolve("config").toString());
        env.put("XDG_DATA_HOME", root.resolve("share").toString());
        env.put("XDG_RUNTIME_DIR", root.resolve("run").toString());
        env.put("PGHOST", root.toString()); // the Unix socket directory pg_autoctl connects to its PostgreSQL by
        env.put("PATH", HaNode.PG_BIN + ":/usr/bin:/bin");
        AutoFailoverNode monitor = AutoFailoverNode.create(name + "-monitor", root, env);
        List<AutoFailoverNode> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            nodes.add(AutoFailoverNode.create(name + "-" + i, root, env));
        }
        AutoFailoverCluster cluster = new AutoFailoverCluster(root, options, monitor, nodes);
        try {
            for (AutoFailoverNode n : cluster.processes()) {
                Files.createDirectories(n.dir());
            }
            run("chown", "-R", "postgres:postgres", root.toString());

            initdb(monitor, options.monitorSettings());
            monitor.autoctl(common(monitor, "create", "monitor"));
            monitor.launch();
            cluster.awaitMonitor(START_TIMEOUT);

            initdb(nodes.get(0), "");
            for (AutoFailoverNode n : nodes) {
                cluster.createDataNode(n);
                if (n == nodes.get(0)) {
                    cluster.awaitState(n, "single", START_TIMEOUT);
                } else {
                    cluster.awaitReplica(n, START_TIMEOUT);
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** {@code initdb} as postgres, trust authentication, then this harness's settings in postgresql.auto.conf. */
    private static void initdb(AutoFailoverNode n, String settings) throws IOException, InterruptedException {
        run(
                "setpriv",
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                HaNode.PG_BIN.resolve("initdb").toString(),
                "--pgdata",
                n.dataDir().toString(),
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8");
        Files.writeString(
                n.dataDir().resolve("postgresql.auto.conf"),
                SERVER_SETTINGS + "unix_socket_directories = '" + n.dir().getParent() + "'\n" + settings,
                StandardOpenOption.APPEND);
    }

    /** pg_autoctl's arguments every process shares: its data directory, port, host name, listen address, auth. */
    private static String[] common(AutoFailoverNode n, String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(List.of(
                "--pgdata",
                n.dataDir().toString(),
                "--pgport",
                Integer.toString(n.pgPort()),
                "--pgctl",
                HaNode.PG_BIN.resolve("pg_ctl").toString(),
                "--hostname",
                "127.0.0.1",
                "--listen",
                "127.0.0.1",
                "--auth",
                "trust",
                "--no-ssl"));
        return args.toArray(String[]::new);
    }

    /** Registers {@code n} with the monitor (the first node: on its own data directory; the next: to be cloned). */
    private void createDataNode(AutoFailoverNode n) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(common(n, "create", "postgres")));
        args.addAll(List.of(
                "--name", n.name(),
                "--monitor",
                        "postgres://autoctl_node@127.0.0.1:" + monitor.pgPort() + "/pg_auto_failover?sslmode=disable",
                "--replication-quorum", Boolean.toString(options.synchronous())));
        n.autoctl(args.toArray(String[]::new));
        Optional<Integer> partition = options.networkPartitionTimeoutS();
        if (partition.isPresent()) {
            n.autoctl(
                    "config",
                    "set",
                    "--pgdata",
                    n.dataDir().toString(),
                    "timeout.network_partition_timeout",
                    partition.get().toString());
        }
        Optional<Integer> catchup = options.catchupTimeoutS();
        if (catchup.isPresent()) {
            n.autoctl(
                    "config",
                    "set",
                    "--pgdata",
                    n.dataDir().toString(),
                    "timeout.prepare_promotion_catchup",
                    catchup.get().toString());
        }
        n.launch();
    }

    public Options options() {
        return options;
    }

    /**
     * SIGKILLs the monitor (its pg_autoctl, PostgreSQL and backends at once). pg_auto_failover documents what
     * follows: a node that cannot reach the monitor stays in its state until the monitor is back; a primary that still
     * sees its standby connected does not demote itself. No failover can happen meanwhile.
     */
    public void killMonitor() throws IOException {
        monitor.kill();
    }

    /** Runs the killed monitor again on its data directory and waits until it answers (120 s at most). */
    public void relaunchMonitor() throws IOException, InterruptedException {
        if (monitor.isAlive()) {
            throw new IllegalStateException("the monitor is running");
        }
        monitor.launch();
        awaitMonitor(START_TIMEOUT);
    }

    /**
     * How long a primary that reaches neither the monitor nor a standby goes on before it demotes itself: the
     * keepers' {@code timeout.network_partition_timeout} (pg_auto_failover's default 20 s).
     */
    public Duration networkPartitionTimeout() {
        return Duration.ofSeconds(options.networkPartitionTimeoutS().orElse(20));
    }

    /**
     * Cuts {@code node} off from the monitor, both ways, and from nothing else: its keeper's connections to the
     * monitor's port and the monitor's health checks of its PostgreSQL never form (iptables on {@code lo}, by the
     * processes' cgroups: {@link LoopbackCut#fromProcesses}), while its standby still streams from it and the
     * application still reaches it. Connections open at the cut go on (the keeper opens one per call to the
     * monitor, the monitor one per health check). Until {@link LoopbackCut#close()}.
     */
    public LoopbackCut cutFromMonitor(AutoFailoverNode node) throws IOException, InterruptedException {
        ProcessHandle keeper = node.managerProcess()
                .orElseThrow(() -> new IllegalStateException(node.name() + "'s pg_autoctl is not running"));
        ProcessHandle monitorProcess = monitor.managerProcess()
                .orElseThrow(() -> new IllegalStateException("the monitor's pg_autoctl is not running"));
        LoopbackCut toMonitor = LoopbackCut.fromProcesses(List.of(keeper), monitor.pgPort());
        try {
            return LoopbackCut.of(
                    List.of(toMonitor, LoopbackCut.fromProcesses(List.of(monitorProcess), node.pgPort())));
        } catch (IOException | InterruptedException | RuntimeException e) {
            toMonitor.close();
            throw e;
        }
    }

    @Override
    protected List<AutoFailoverNode> processes() {
        List<AutoFailoverNode> all = new ArrayList<>(nodes());
        all.add(monitor); // stopped last: the keepers report to it until they stop
        return all;
    }

    /** One data node's row in the monitor: its id and the state it reported and the state it was assigned. */
    public record State(long nodeId, String reported, String goal) {
        boolean is(String state) {
            return reported.equals(state) && goal.equals(state);
        }
    }

    /** Every data node's state as the monitor sees it now ({@code pgautofailover.node}), by node name. */
    public Map<String, State> states() throws SQLException {
        Map<String, State> states = new HashMap<>();
        try (Connection c = DriverManager.getConnection(monitorUrl());
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT nodename, nodeid, reportedstate, goalstate FROM pgautofailover.node")) {
            while (rs.next()) {
                states.put(rs.getString(1), new State(rs.getLong(2), rs.getString(3), rs.getString(4)));
            }
        }
        return states;
    }

    private String monitorUrl() {
        return "jdbc:postgresql://127.0.0.1:" + monitor.pgPort() + "/pg_auto_failover?user=postgres&connectTimeout=2";
    }

    private void awaitMonitor(Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                states();
                return;
            } catch (SQLException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the monitor did not answer within " + timeout + ": " + logs(), e);
                }
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling: the monitor starting
        }
    }

    private void awaitState(AutoFailoverNode n, String state, Duration timeout)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            State s = statesOrEmpty().get(n.name());
            if (s != null && s.is(state)) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        n.name() + " not " + state + " within " + timeout + " (" + s + "): " + logs());
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the monitor
        }
    }

    private Map<String, State> statesOrEmpty() {
        try {
            return states();
        } catch (SQLException e) {
            return Map.of(); // the monitor not answering for a moment: poll again
        }
    }

    /** The node a write through {@link #multiHostUrl} reaches now (in recovery and read-only ones are not), if one. */
    public Optional<AutoFailoverNode> primary() {
        return nodes().stream().filter(AutoFailoverNode::isWritablePrimary).findFirst();
    }

    /** Polls every 20 ms until a node other than {@code old} (null: any) takes writes, {@code timeout} at most. */
    @Override
    public AutoFailoverNode awaitPrimaryOtherThan(AutoFailoverNode old, Duration timeout)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (AutoFailoverNode n : nodes()) {
                if (n != old && n.isWritablePrimary()) {
                    return n;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no primary" + (old == null ? "" : " but " + old.name()) + " within "
                        + timeout + ": " + statesOrEmpty() + logs());
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the nodes
        }
    }

    /**
     * Polls until the monitor has {@code node} as {@code secondary} and another as {@code primary} (both reported and
     * assigned: with replication quorum, the standby is then in the primary's {@code synchronous_standby_names}), and
     * the primary's {@code pg_stat_replication} shows it streaming (pg_auto_failover names each walreceiver
     * {@code pgautofailover_standby_<node id>}); {@code timeout} at most. After a failover: the old primary rejoined,
     * by {@code pg_rewind} if its WAL diverged.
     */
    @Override
    public void awaitReplica(AutoFailoverNode node, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<String, State> states = statesOrEmpty();
            State mine = states.get(node.name());
            Optional<AutoFailoverNode> primary = nodes().stream()
                    .filter(n -> n != node
                            && states.containsKey(n.name())
                            && states.get(n.name()).is("primary"))
                    .findFirst();
            if (mine != null
                    && mine.is("secondary")
                    && primary.isPresent()
                    && streaming(primary.get(), "pgautofailover_standby_" + mine.nodeId())) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(node.name() + " did not become a streaming secondary within " + timeout
                        + " (" + states + "): " + logs());
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the monitor
        }
    }

    /** Runs the keeper of a killed node again on its data directory: it asks the monitor and rejoins by itself. */
    @Override
    public void relaunch(AutoFailoverNode node) throws IOException {
        if (node.isAlive()) {
            throw new IllegalStateException(node.name() + " is running");
        }
        node.launch();
    }

    /** The node's own: its WAL insert position's on a primary, its WAL receiver's on a standby. */
    @Override
    public long timelineOf(AutoFailoverNode node) throws SQLException {
        return node.timeline();
    }
}
