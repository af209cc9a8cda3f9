package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One TCP connection on loopback cut both ways ({@link #connection}), or a process cut off from its peers
 * ({@link #peers}): iptables drops their packets (on {@code lo} only, matched by ports, so nothing else on the machine
 * is touched) until {@link #close()}. Unlike pausing a process, nothing the
 * sender wrote before or during the cut reaches the receiver's socket buffer: what a primary sent its standby then is
 * lost if the primary dies before the cut is lifted. Needs root and {@code iptables}.
 */
public final class LoopbackCut implements AutoCloseable {

    static final Path IPTABLES = Path.of("/usr/sbin/iptables");

    private final List<List<String>> rules;
    private boolean lifted;

    private LoopbackCut(List<List<String>> rules) {
        this.rules = rules;
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

    /** Whether iptables is installed. */
    public static boolean available() {
        return Files.isExecutable(IPTABLES);
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
        try {
            for (List<String> rule : rules) {
                iptables("-D", rule);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while lifting the cut " + rules, e);
        }
    }
}
