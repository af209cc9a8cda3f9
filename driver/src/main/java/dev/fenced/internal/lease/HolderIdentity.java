package dev.fenced.internal.lease;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The default name a lease manager writes into the lease table's {@code holder} column:
 * {@code host:pid:random}. The host and pid tell an operator where a lease is held; the random part keeps
 * two managers in one process (or a restarted process that got the same pid) apart, because renewal and
 * release only touch rows whose holder matches.
 */
public final class HolderIdentity {

    private static final SecureRandom RANDOM = new SecureRandom();

    private HolderIdentity() {}

    public static String generate() {
        byte[] nonce = new byte[6];
        RANDOM.nextBytes(nonce);
        return host() + ":" + ProcessHandle.current().pid() + ":"
                + HexFormat.of().formatHex(nonce);
    }

    /** The environment's idea of the host name first: resolving our own address can wait on DNS. */
    private static String host() {
        for (String env : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
            String v = System.getenv(env);
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
