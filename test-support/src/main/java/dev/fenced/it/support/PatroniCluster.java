package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
public final class PatroniCluster extends HaCluster<PatroniNode> {

    static final Path PATRONI = Path.of("/usr/bin/patroni");
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
    private final Options options;

    private PatroniCluster(String scope, Path root, Options options, List<PatroniNode> nodes) {
        super(root, nodes);
        this.scope = scope;
        this.options = options;
    }

    /** Whether Patroni and the PostgreSQL 15 binaries are installed ({@code apt-get install -y patroni}). */
    public static boolean binariesPresent() {
        return Files.isExecutable(PATRONI) && Files.isExecutable(HaNode.PG_BIN.resolve("postgres"));
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

    public Options options() {
        return options;
    }

    /** The node Patroni serves as primary now ({@code GET /primary} answers 200), if one does. */
    public Optional<PatroniNode> leader() throws InterruptedException {
        for (PatroniNode n : nodes()) {
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

    @Override
    public PatroniNode awaitPrimaryOtherThan(PatroniNode old, Duration timeout)
            throws InterruptedException, IOException {
        return awaitLeaderOtherThan(old, timeout);
    }

    /** Polls every 20 ms until a node other than {@code old} (null: any) is the primary, {@code timeout} at most. */
    public PatroniNode awaitLeaderOtherThan(PatroniNode old, Duration timeout)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (PatroniNode n : nodes()) {
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
     * {@code pg_rewind} if its WAL diverged), streaming from it ({@code pg_stat_replication}: Patroni names each
     * walreceiver after its node; {@code GET /replica} answers 200 before that, as a fresh clone waits for its
     * replication slot, which the primary's Patroni creates at its next cycle, up to loop_wait later) and, in
     * synchronous mode, the synchronous standby; {@code timeout} at most.
     */
    @Override
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
                        && streaming(leader.get(), node.name())) {
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

    /** Launches the Patroni of a killed node again on its configuration and data directory (it rejoins by itself). */
    @Override
    public void relaunch(PatroniNode node) throws IOException {
        if (node.isAlive()) {
            throw new IllegalStateException(node.name() + " is running");
        }
        node.launch();
    }

    /** Patroni's view of the node's timeline ({@code GET /patroni}): right after a promotion it still says the old one. */
    @Override
    public long timelineOf(PatroniNode node) throws InterruptedException {
        return node.timeline().orElseThrow(() -> new IllegalStateException(node.name() + " reports no timeline"));
    }
}
