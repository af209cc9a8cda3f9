package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A real one-member etcd (Debian's etcd-server) on free loopback ports, with a data directory of its own, for the
 * tests of etcd tokens and of the etcd lease store. Whether a missing binary skips or fails a test is the test's
 * call ({@link #binary()}). Three members: {@link EtcdCluster}.
 */
public final class EtcdServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path root;
    private final EtcdMember member;

    private EtcdServer(Path root, EtcdMember member) {
        this.root = root;
        this.member = member;
    }

    /** The etcd binary, if installed ({@code apt-get install -y etcd-server}). */
    public static Optional<Path> binary() {
        return EtcdMember.binary();
    }

    /**
     * Starts etcd as member {@code name} and waits, 30 s at most, until it answers a read.
     *
     * @throws IllegalStateException with etcd's log if it did not start
     */
    public static EtcdServer start(String name) throws IOException, InterruptedException {
        Path root = Files.createTempDirectory("fenced-etcd-" + name);
        EtcdMember member = EtcdMember.create(name, root);
        EtcdServer server = new EtcdServer(root, member);
        try {
            member.launch(member.initialClusterEntry());
            member.awaitReady(START_TIMEOUT);
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The URL clients connect to, {@code http://127.0.0.1:<port>}. */
    public String clientUrl() {
        return member.clientUrl();
    }

    /** The etcd process's id (the scale benchmarks read its CPU time), or -1 when it is not running. */
    public long pid() {
        return member.pid();
    }

    /** Stops etcd and deletes its data. */
    @Override
    public void close() throws IOException {
        member.stop();
        EtcdCluster.delete(root);
    }
}
