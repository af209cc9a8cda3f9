package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real etcd cluster of three members on loopback (127.0.0.1 only, free client and peer ports, a data directory
 * each under one temporary folder): for the tests that kill the leader, kill a follower and restart a member.
 */
public final class EtcdCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path root;
    private final List<EtcdMember> members;
    private final String initialCluster;

    private EtcdCluster(Path root, List<EtcdMember> members) {
        this.root = root;
        this.members = List.copyOf(members);
        this.initialCluster =
                members.stream().map(EtcdMember::initialClusterEntry).collect(Collectors.joining(","));
    }

    /**
     * Starts {@code size} members {@code name-0 ...} and waits, 30 s at most, until each answers a linearizable read
     * (so the cluster has a leader).
     *
     * @throws IllegalStateException with the members' logs if they did not start
     */
    public static EtcdCluster start(String name, int size) throws IOException, InterruptedException {
        return start(name, size, -1);
    }

    /**
     * As {@link #start(String, int)}, each member run as a user of its own ({@code 61000 + i}, no account needed), so
     * that {@link #partition} can tell a member's connections from the others' on loopback. Needs root.
     */
    public static EtcdCluster startAsOwnUsers(String name, int size) throws IOException, InterruptedException {
        return start(name, size, FIRST_UID);
    }

    private static final int FIRST_UID = 61_000;

    private static EtcdCluster start(String name, int size, int firstUid) throws IOException, InterruptedException {
        Path root = Files.createTempDirectory("fenced-etcd-" + name);
        List<EtcdMember> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(EtcdMember.create(name + "-" + i, root, firstUid < 0 ? -1 : firstUid + i));
        }
        EtcdCluster cluster = new EtcdCluster(root, members);
        try {
            for (EtcdMember m : members) {
                m.launch(cluster.initialCluster);
            }
            for (EtcdMember m : members) {
                m.awaitReady(START_TIMEOUT);
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Whether the etcd binary is installed ({@code apt-get install -y etcd-server}). */
    public static boolean binaryPresent() {
        return EtcdMember.binary().isPresent();
    }

    public List<EtcdMember> members() {
        return members;
    }

    /** Every member's client URL, for {@code Client.builder().endpoints(...)}. */
    public String[] clientUrls() {
        return members.stream().map(EtcdMember::clientUrl).toArray(String[]::new);
    }

    /**
     * The leader, as the live members report it ({@code /v3/maintenance/status}): polled until a majority of the
     * live members agree on one that is itself alive and says it is the leader, {@code timeout} at most.
     */
    public EtcdMember awaitLeader(Duration timeout) throws InterruptedException, IOException {
        return awaitLeader(timeout, m -> true);
    }

    /**
     * As {@link #awaitLeader(Duration)}, a leader among {@code among} only: after {@link #partition}, the majority's
     * new leader, while the cut-off member may still believe it leads.
     */
    public EtcdMember awaitLeader(Duration timeout, Predicate<EtcdMember> among)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<EtcdMember> leader = leader(among);
            if (leader.isPresent()) {
                return leader.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no etcd leader within " + timeout + ": " + logs());
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the members' status: etcd has no leader-change callback here
        }
    }

    /** The member that says it is the leader, if it does now. */
    public Optional<EtcdMember> leader() throws InterruptedException {
        return leader(m -> true);
    }

    private Optional<EtcdMember> leader(Predicate<EtcdMember> among) throws InterruptedException {
        for (EtcdMember m : members) {
            if (!m.isAlive() || !among.test(m)) {
                continue;
            }
            Optional<long[]> status = m.memberAndLeader();
            if (status.isPresent() && status.get()[0] == status.get()[1]) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** A live member that is not {@code leader}. */
    public EtcdMember follower(EtcdMember leader) {
        return members.stream()
                .filter(m -> m != leader && m.isAlive())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no live follower"));
    }

    /**
     * Cuts {@code member} off from the other members while clients still reach it: its peer connections, both the
     * ones it opens and the ones opened to it, are dropped on loopback ({@link LoopbackCut#peers}) until the cut is
     * closed. The cluster must have been started {@linkplain #startAsOwnUsers as own users}.
     */
    public LoopbackCut partition(EtcdMember member) throws IOException, InterruptedException {
        if (member.uid() < 0) {
            throw new IllegalStateException("members run as this JVM's user: start the cluster with startAsOwnUsers");
        }
        int[] others = members.stream()
                .filter(m -> m != member)
                .mapToInt(EtcdMember::peerPort)
                .toArray();
        return LoopbackCut.peers(member.uid(), member.peerPort(), others);
    }

    /** Launches a killed member again on its ports and data directory, and waits until it serves reads. */
    public void restart(EtcdMember member) throws IOException, InterruptedException {
        if (member.isAlive()) {
            throw new IllegalStateException(member.name() + " is running");
        }
        member.launch(initialCluster);
        member.awaitReady(START_TIMEOUT);
    }

    private String logs() throws IOException {
        StringBuilder all = new StringBuilder();
        for (EtcdMember m : members) {
            all.append("\n--- ").append(m.name()).append('\n').append(m.log());
        }
        return all.toString();
    }

    /** Stops every member and deletes their data. */
    @Override
    public void close() throws IOException {
        members.forEach(EtcdMember::stop);
        delete(root);
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
