package dev.fenced.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One TCP connection on loopback cut both ways: iptables drops its packets (on {@code lo} only, matched by both its
 * ports, so nothing else on the machine is touched) until {@link #close()}. Unlike pausing a process, nothing the
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
        List<List<String>> rules = List.of(drop(serverPort, clientPort), drop(clientPort, serverPort));
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
