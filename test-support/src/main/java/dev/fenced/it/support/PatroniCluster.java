package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * PostgreSQL HA as teams run it: Patroni (Debian's package, 3.0) with its DCS on an {@link EtcdCluster} (its
 * {@code etcd3:} section: etcd 3.4 has the v2 API off), a primary and streaming replicas of the PostgreSQL 15
 * binaries, everything on loopback (127.0.0.1 only, free ports) under one temporary folder owned by the postgres user
 * (Patroni runs as that user). The nodes bootstrap one after the other: the first initialises the cluster, the next
 * clone it. {@code use_pg_rewind} (with {@code wal_log_hints}) lets a failed primary rejoin as a replica.
 * {@code master_start_timeout: 0} makes a killed postmaster fail over at once instead of being restarted in place
 * (Patroni's default waits 300 s for it).
 */
public final class PatroniCluster implements AutoCloseable {

    static final Path PATRONI = Path.of("/usr/bin/patroni");
    static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /**
     * Patroni's timing ({@code ttl} of the leader key, {@code loop_wait} between its cycles, {@code retry_timeout}
     * for DCS and PostgreSQL calls; Patroni wants {@code loop_wait + 2 * retry_timeout <= ttl}) and
     * {@code synchronous_mode} (non-strict: with the standby gone the primary goes on alone).
     */
    public record Options(boolean synchronousMode, int ttl, int loopWait, int retryTimeout) {

        /** Patroni's defaults: ttl 30, loop_wait 10, retry_timeout 10. */
        public static Options defaults(boolean synchronousMode) {
            return new Options(synchronousMode, 30, 10, 10);
        }

        public Options {
            if (loopWait + 2 * retryTimeout > ttl) {
                throw new IllegalArgumentException("Patroni wants loop_wait + 2 * retry_timeout <= ttl: " + this);
            }
        }
    }

    private final String scope;
    private final Path root;
    private final Options options;
    private final List<PatroniNode> nodes;

    private PatroniCluster(String scope, Path root, Options options, List<PatroniNode> nodes) {
        this.scope = scope;
        this.root = root;
        this.options = options;
        this.nodes = List.copyOf(nodes);
    }

    /** Whether Patroni and the PostgreSQL 15 binaries are installed ({@code apt-get install -y patroni}). */
    public static boolean binariesPresent() {
        return Files.isExecutable(PATRONI) && Files.isExecutable(PG_BIN.resolve("postgres"));
    }

    /**
     * Starts {@code size} nodes {@code scope-0 ...} of cluster {@code scope} on {@code etcd}: the first bootstraps and
     * becomes the primary, then each other one is cloned and streams from it (in synchronous mode, the cluster waits
     * until one of them is the synchronous standby). 90 s at most per node.
     *
     * @throws IllegalStateException with the nodes' logs if they did not get there
     */
    public static PatroniCluster start(String scope, EtcdCluster etcd, Options options, int size)
            throws IOException, InterruptedException {
        Path root = Files.createTempDirectory("fenced-patroni-" + scope);
        List<PatroniNode> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            nodes.add(PatroniNode.create(scope + "-" + i, root));
        }
        PatroniCluster cluster = new PatroniCluster(scope, root, options, nodes);
        try {
            String dcs = cluster.sharedConfig(etcd);
            for (PatroniNode n : nodes) {
                Files.createDirectories(n.dir());
                Files.writeString(n.config(), dcs + n.localConfig());
            }
            run("chown", "-R", "postgres:postgres", root.toString());
            nodes.get(0).launch();
            PatroniNode leader = cluster.awaitLeader(START_TIMEOUT);
            for (PatroniNode n : nodes.subList(1, size)) {
                n.launch();
                cluster.awaitReplica(n, START_TIMEOUT);
            }
            if (leader != nodes.get(0)) {
                throw new IllegalStateException("the first node did not stay the leader: " + cluster.logs());
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** What every node's configuration shares: the scope, the DCS, and the dynamic configuration it bootstraps. */
    private String sharedConfig(EtcdCluster etcd) {
        String hosts = Arrays.stream(etcd.clientUrls())
                .map(u -> u.replaceFirst("^http://", ""))
                .collect(Collectors.joining(","));
        return "scope: " + scope + "\n"
                + "etcd3:\n"
                + "  hosts: " + hosts + "\n"
                + "bootstrap:\n"
                + "  dcs:\n"
                + "    ttl: " + options.ttl() + "\n"
                + "    loop_wait: " + options.loopWait() + "\n"
                + "    retry_timeout: " + options.retryTimeout() + "\n"
                + "    maximum_lag_on_failover: 1048576\n"
                + "    master_start_timeout: 0\n"
                + "    synchronous_mode: " + options.synchronousMode() + "\n"
                + "    postgresql:\n"
                + "      use_pg_rewind: true\n"
                + "      use_slots: true\n"
                + "      parameters:\n"
                + "        wal_log_hints: 'on'\n"
                + "        max_connections: 100\n"
                + "        wal_keep_size: 256MB\n"
                + "  initdb:\n"
                + "    - encoding: UTF8\n"
                + "    - auth: trust\n"
                + "  pg_hba:\n"
                + "    - local all all trust\n"
                + "    - host all all 127.0.0.1/32 trust\n"
                + "    - host replication all 127.0.0.1/32 trust\n";
    }

    public List<PatroniNode> nodes() {
        return nodes;
    }

    public Options options() {
        return options;
    }

    /** Every node, {@code 127.0.0.1:p1,127.0.0.1:p2}, for pgjdbc's multi-host URL. */
    public String hosts() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.pgPort()).collect(Collectors.joining(","));
    }

    /**
     * The application's URL: every node, {@code targetServerType=primary} (pgjdbc tries each host until one is the
     * primary), plus {@code parameters} ({@code a=b&c=d}, may be empty).
     */
    public String multiHostUrl(String parameters) {
        return "jdbc:postgresql://" + hosts() + "/postgres?user=postgres&targetServerType=primary"
                + (parameters.isEmpty() ? "" : "&" + parameters);
    }

    /** The node Patroni serves as primary now ({@code GET /primary} answers 200), if one does. */
    public Optional<PatroniNode> leader() throws InterruptedException {
        for (PatroniNode n : nodes) {
            if (n.isAlive() && n.answers("primary")) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }

    /** Polls every 20 ms until a node is the primary, {@code timeout} at most. */
    public PatroniNode awaitLeader(Duration timeout) throws InterruptedException, IOException {
        return awaitLeaderOtherThan(null, timeout);
    }

    /** Polls every 20 ms until a node other than {@code old} (null: any) is the primary, {@code timeout} at most. */
    public PatroniNode awaitLeaderOtherThan(PatroniNode old, Duration timeout)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (PatroniNode n : nodes) {
                if (n != old && n.isAlive() && n.answers("primary")) {
                    return n;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no primary" + (old == null ? "" : " but " + old.name()) + " within "
                        + timeout + ": " + logs());
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling Patroni's REST API: it has no callback for us
        }
    }

    /**
     * Polls until {@code node} is a running replica on the primary's timeline (after a failover: rejoined, by
     * {@code pg_rewind} if its WAL diverged) and, in synchronous mode, the synchronous standby; {@code timeout} at
     * most.
     */
    public void awaitReplica(PatroniNode node, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<PatroniNode> leader = leader();
            if (leader.isPresent() && leader.get() != node && node.answers("replica")) {
                OptionalLong mine = node.timeline();
                OptionalLong theirs = leader.get().timeline();
                boolean sameTimeline = mine.isPresent() && theirs.isPresent() && mine.getAsLong() == theirs.getAsLong();
                if (sameTimeline
                        && (!options.synchronousMode() || node.answers("sync"))
                        && streaming(leader.get(), node)) {
                    return;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        node.name() + " did not become a replica within " + timeout + ": " + logs());
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling Patroni's REST API
        }
    }

    /**
     * Whether {@code replica} streams from {@code leader} ({@code pg_stat_replication}; Patroni names each walreceiver
     * after its node). Patroni's {@code GET /replica} answers 200 before that: a fresh clone waits for its replication
     * slot, which the primary's Patroni creates at its next cycle (up to loop_wait later), and a replica promoted
     * meanwhile has none of the primary's writes since the clone (seen with loop_wait 10 s).
     */
    private static boolean streaming(PatroniNode leader, PatroniNode replica) {
        try (Connection c = DriverManager.getConnection(leader.jdbcUrl());
                PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_replication WHERE application_name = ? AND state = 'streaming'")) {
            ps.setString(1, replica.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        } catch (SQLException e) {
            return false; // not answering yet: poll again
        }
    }

    /** Launches the Patroni of a killed node again on its configuration and data directory (it rejoins by itself). */
    public void relaunch(PatroniNode node) throws IOException {
        if (node.isAlive()) {
            throw new IllegalStateException(node.name() + " is running");
        }
        node.launch();
    }

    /** Every node's Patroni log (which also holds PostgreSQL's, as Patroni runs it). */
    public String logs() throws IOException {
        StringBuilder all = new StringBuilder();
        for (PatroniNode n : nodes) {
            all.append("\n--- ").append(n.name()).append('\n');
            if (Files.exists(n.log())) {
                String log = Files.readString(n.log());
                all.append(log.length() > 8000 ? log.substring(log.length() - 8000) : log);
            }
        }
        return all.toString();
    }

    /** The lines of the nodes' logs that mention {@code pg_rewind}: whether and how each rejoin rewound. */
    public List<String> rewindLines() throws IOException {
        List<String> lines = new ArrayList<>();
        for (PatroniNode n : nodes) {
            if (Files.exists(n.log())) {
                Files.readAllLines(n.log()).stream()
                        .filter(l -> l.contains("pg_rewind"))
                        .forEach(l -> lines.add(n.name() + ": " + l));
            }
        }
        return lines;
    }

    /** Stops every node (Patroni stops its PostgreSQL; SIGKILL after 20 s) and deletes their files. */
    @Override
    public void close() throws IOException {
        for (PatroniNode n : nodes) {
            n.stop();
        }
        EtcdCluster.delete(root);
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(List.of(command) + " failed: " + out);
        }
    }
}
