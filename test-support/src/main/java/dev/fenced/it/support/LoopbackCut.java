package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * One TCP connection on loopback cut both ways ({@link #connection}), or a process cut off from its peers
 * ({@link #peers}): iptables drops their packets (on {@code lo} only, matched by ports, so nothing else on the machine
 * is touched) until {@link #close()}. Unlike pausing a process, nothing the
 * sender wrote before or during the cut reaches the receiver's socket buffer: what a primary sent its standby then is
 * lost if the primary dies before the cut is lifted. Needs root and {@code iptables}.
 *
 * <p>Or what some processes send to a port ({@link #fromProcesses}): on loopback every process has the same address,
 * and a client's port is new at each connection, so those processes are told apart by a cgroup (v2) of their own, which
 * iptables matches on {@code OUTPUT} ({@code -m cgroup --path}). Several cuts lifted together: {@link #of}.
 */
public final class LoopbackCut implements AutoCloseable {

    static final Path IPTABLES = Path.of("/usr/sbin/iptables");

    private final List<List<String>> rules;
    private final List<ProcessGroup> groups;
    private final List<LoopbackCut> parts;
    private boolean lifted;

    private LoopbackCut(List<List<String>> rules, List<ProcessGroup> groups, List<LoopbackCut> parts) {
        this.rules = rules;
        this.groups = groups;
        this.parts = parts;
    }

    private LoopbackCut(List<List<String>> rules) {
        this(rules, List.of(), List.of());
    }

    /** The rule that drops what {@code sourcePort} sends to {@code destinationPort} on {@code lo}. */
    private static List<String> drop(int sourcePort, int destinationPort) {
        return List.of(
                "INPUT",
                "-i",
                "lo",
                "-p",
                "tcp",
                "--sport",
                Integer.toString(sourcePort),
                "--dport",
                Integer.toString(destinationPort),
                "-j",
                "DROP");
    }

    /** The rule that drops what the processes of {@code group} send to {@code destinationPort} on {@code lo}. */
    private static List<String> drop(ProcessGroup group, int destinationPort) {
        return List.of(
                "OUTPUT",
                "-o",
                "lo",
                "-p",
                "tcp",
                "-m",
                "cgroup",
                "--path",
                group.name(),
                "--dport",
                Integer.toString(destinationPort),
                "-j",
                "DROP");
    }

    /** Whether iptables is installed. */
    public static boolean available() {
        return Files.isExecutable(IPTABLES);
    }

    /** Whether {@link #fromProcesses} can work here: iptables, and a cgroup v2 hierarchy this user may write. */
    public static boolean processCutAvailable() {
        return available() && ProcessGroup.root().filter(Files::isWritable).isPresent();
    }

    /** Cuts the connection between {@code serverPort} and {@code clientPort} on 127.0.0.1, both directions. */
    public static LoopbackCut connection(int serverPort, int clientPort) throws IOException, InterruptedException {
        return insert(List.of(drop(serverPort, clientPort), drop(clientPort, serverPort)));
    }

    /**
     * Cuts a process (running as user {@code uid}, listening for its peers on {@code ownPort}) off from its peers
     * (listening on {@code peerPorts}), while its other ports stay reachable: every connection to {@code ownPort} and
     * every connection {@code uid}'s processes open to a peer port is dropped, both directions. Only the sending side
     * knows a socket's owner, so the second kind is marked as it leaves ({@code CONNMARK}, a mark of its own per
     * {@code ownPort}) and its packets are dropped, both ways, as they arrive (on a connection it already had, from its
     * first packet after the cut on: what a peer sent before that may still arrive). No other process of {@code uid}
     * may talk to {@code peerPorts}.
     */
    public static LoopbackCut peers(int uid, int ownPort, int... peerPorts) throws IOException, InterruptedException {
        String mark = "0x" + Integer.toHexString(0xfe0000 | ownPort);
        String ports = String.join(
                ",", IntStream.of(peerPorts).mapToObj(Integer::toString).toList());
        String port = Integer.toString(ownPort);
        return insert(List.of(
                List.of(
                        "OUTPUT",
                        "-o",
                        "lo",
                        "-p",
                        "tcp",
                        "-m",
                        "owner",
                        "--uid-owner",
                        Integer.toString(uid),
                        "-m",
                        "multiport",
                        "--dports",
                        ports,
                        "-j",
                        "CONNMARK",
                        "--set-mark",
                        mark),
                List.of("INPUT", "-i", "lo", "-p", "tcp", "-m", "connmark", "--mark", mark, "-j", "DROP"),
                List.of("INPUT", "-i", "lo", "-p", "tcp", "--dport", port, "-j", "DROP"),
                List.of("INPUT", "-i", "lo", "-p", "tcp", "--sport", port, "-j", "DROP")));
    }

    /** Inserts {@code rules}, all or none. */
    private static LoopbackCut insert(List<List<String>> rules) throws IOException, InterruptedException {
        for (int i = 0; i < rules.size(); i++) {
            try {
                iptables("-I", rules.get(i));
            } catch (IOException | InterruptedException | RuntimeException e) {
                // no half cut left behind: the rules already inserted go
                new LoopbackCut(rules.subList(0, i)).close();
                throw e;
            }
        }
        return new LoopbackCut(rules);
    }

    /**
     * Cuts what {@code senders} (and the processes they start from now on) send to {@code destinationPort} on
     * loopback, replies included: the connections they open from now on never form (their first packet is dropped;
     * those already open go on). The senders are moved to a cgroup of their own until {@link #close()} moves them back.
     */
    public static LoopbackCut fromProcesses(Collection<ProcessHandle> senders, int destinationPort)
            throws IOException, InterruptedException {
        ProcessGroup group = ProcessGroup.create(senders);
        List<String> rule = drop(group, destinationPort);
        try {
            iptables("-I", rule);
        } catch (IOException | InterruptedException | RuntimeException e) {
            group.dissolve();
            throw e;
        }
        return new LoopbackCut(List.of(rule), List.of(group), List.of());
    }

    /** Several cuts as one: {@link #close()} lifts them all (each even if another failed to). */
    public static LoopbackCut of(List<LoopbackCut> cuts) {
        return new LoopbackCut(List.of(), List.of(), List.copyOf(cuts));
    }

    private static void iptables(String action, List<String> rule) throws IOException, InterruptedException {
        String[] command = new String[rule.size() + 3];
        command[0] = IPTABLES.toString();
        command[1] = "-w"; // wait for the xtables lock rather than fail
        command[2] = action;
        for (int i = 0; i < rule.size(); i++) {
            command[i + 3] = rule.get(i);
        }
        HaCluster.run(command);
    }

    /** Lifts the cut (once): the connection's packets flow again, if either end is still there. */
    @Override
    public void close() throws IOException {
        if (lifted) {
            return;
        }
        lifted = true;
        IOException failed = null;
        for (LoopbackCut part : parts) {
            try {
                part.close();
            } catch (IOException e) {
                failed = e;
            }
        }
        try {
            for (List<String> rule : rules) {
                iptables("-D", rule);
            }
            for (ProcessGroup group : groups) {
                group.dissolve();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while lifting the cut " + rules, e);
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Processes gathered in a cgroup (v2) of their own, a child of the hierarchy's root, so that iptables can match
     * what they send ({@code -m cgroup --path <name>}). A process they fork joins it; a socket keeps the cgroup its
     * process had when the socket was created.
     */
    private record ProcessGroup(String name, Path dir, Path home) {

        /** Where the cgroup v2 hierarchy is mounted ({@code /sys/fs/cgroup}, or {@code .../unified} in hybrid mode). */
        static Optional<Path> root() {
            try {
                return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                        .map(l -> l.split(" "))
                        .filter(f -> f.length > 2 && f[2].equals("cgroup2"))
                        .map(f -> Path.of(f[1]))
                        .findFirst();
            } catch (IOException e) {
                return Optional.empty();
            }
        }

        /** Moves {@code members} (and their descendants) to a new cgroup; all must share one cgroup now. */
        static ProcessGroup create(Collection<ProcessHandle> members) throws IOException {
            Path root = root().orElseThrow(() -> new IOException("no cgroup v2 hierarchy mounted"));
            List<ProcessHandle> all = withDescendants(members);
            Path home = null;
            for (ProcessHandle p : all) {
                Optional<Path> found = cgroupOf(root, p);
                if (found.isEmpty()) {
                    continue; // exited since it was listed (a backend that served one query, say)
                }
                Path now = found.get();
                if (home != null && !home.equals(now)) {
                    throw new IOException("the processes are in different cgroups: " + home + ", " + now);
                }
                home = now;
            }
            if (home == null) {
                throw new IOException("no process to cut off");
            }
            String name = "fenced-cut-" + UUID.randomUUID();
            ProcessGroup group = new ProcessGroup(name, Files.createDirectory(root.resolve(name)), home);
            // twice: a process forked while the first pass moved its parent is moved by the second
            group.adopt(all);
            group.adopt(withDescendants(members));
            return group;
        }

        private static List<ProcessHandle> withDescendants(Collection<ProcessHandle> members) {
            List<ProcessHandle> all = new ArrayList<>();
            for (ProcessHandle p : members) {
                all.add(p);
                p.descendants().forEach(all::add);
            }
            return all;
        }

        /** The process's cgroup v2; empty if it has exited. */
        private static Optional<Path> cgroupOf(Path root, ProcessHandle p) throws IOException {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "cgroup"));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
            for (String line : lines) {
                if (line.startsWith("0::")) {
                    return Optional.of(root.resolve(line.substring(3).replaceFirst("^/", "")));
                }
            }
            throw new IOException("process " + p.pid() + " has no cgroup v2");
        }

        private void adopt(List<ProcessHandle> processes) throws IOException {
            move(processes.stream().map(ProcessHandle::pid).toList(), dir);
        }

        /** Moves each of {@code pids} to {@code cgroup}; one that has exited meanwhile is skipped. */
        private static void move(List<Long> pids, Path cgroup) throws IOException {
            for (long pid : pids) {
                try {
                    Files.writeString(cgroup.resolve("cgroup.procs"), Long.toString(pid));
                } catch (IOException e) {
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        throw e;
                    }
                }
            }
        }

        /** Moves every member back where they came from, then removes the cgroup. */
        void dissolve() throws IOException, InterruptedException {
            for (int attempt = 0; ; attempt++) {
                List<Long> members = Files.readAllLines(dir.resolve("cgroup.procs")).stream()
                        .filter(l -> !l.isBlank())
                        .map(Long::parseLong)
                        .toList();
                move(members, home);
                try {
                    Files.delete(dir);
                    return;
                } catch (IOException e) {
                    if (attempt >= 50) {
                        throw e;
                    }
                    TimeUnit.MILLISECONDS.sleep(20); // a process forked while its parent moved back: move it too
                }
            }
        }
    }
}
