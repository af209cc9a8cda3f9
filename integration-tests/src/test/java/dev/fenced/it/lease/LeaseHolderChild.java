package dev.fenced.it.lease;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.StaleTokenException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The holder that runs in a child JVM. Arguments: {@code mode rawUrl lease ttlMillis [fencedUrl]}.
 *
 * <ul>
 *   <li>{@code hold}: takes the lease, says {@code READY <token>}, and holds it (renewing) until stdin ends
 *       or the process is killed.</li>
 *   <li>{@code write}: takes the lease, opens a fenced connection, says {@code READY <token>}, waits for
 *       {@code WRITE <amount>}, then writes {@code totals.amount} for restaurant 77 under the lease and
 *       says {@code WROTE <rows>} or {@code REFUSED <exception class> <message>}.</li>
 *   <li>{@code write-bound fencedUrl token amount}: takes no lease; binds {@code token} by hand in this fresh JVM,
 *       where no lease ever ended, so nothing on the client can take it for lost, writes {@code totals.amount}
 *       and says what happened, as {@code write} does.</li>
 * </ul>
 */
public final class LeaseHolderChild {

    private LeaseHolderChild() {}

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        if (mode.equals("write-bound")) {
            try (FencingScope bound = Fencing.bind(Long.parseLong(args[2]));
                    Connection c = DriverManager.getConnection(args[1])) {
                System.out.println(writeTotal(c, Long.parseLong(args[3])));
            }
            return;
        }
        String rawUrl = args[1];
        String name = args[2];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[3]));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        LeaseManager leases = LeaseManager.builder(DataSources.simple(rawUrl))
                .holder("child-" + ProcessHandle.current().pid())
                .build();
        Lease lease =
                leases.tryAcquire(name, ttl).orElseThrow(() -> new IllegalStateException("lease " + name + " is busy"));
        switch (mode) {
            case "hold" -> {
                System.out.println("READY " + lease.token());
                while (in.readLine() != null) {
                    // holding; the renewer keeps the lease alive
                }
            }
            case "write" -> {
                try (Connection c = DriverManager.getConnection(args[4])) {
                    System.out.println("READY " + lease.token());
                    String command = in.readLine(); // frozen here by SIGSTOP, like a GC pause mid-job
                    long amount = Long.parseLong(command.substring("WRITE ".length()));
                    System.out.println(writeTotal(c, amount));
                    System.out.println("AFTER valid=" + lease.isValid() + " bound=" + Fencing.currentToken());
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        leases.close();
    }

    /** Writes restaurant 77's total; says {@code WROTE <rows>}, {@code REFUSED <class> <message>} or {@code ERROR}. */
    private static String writeTotal(Connection c, long amount) {
        try (PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = 77")) {
            ps.setLong(1, amount);
            return "WROTE " + ps.executeUpdate();
        } catch (StaleTokenException | LeaseLostException refused) {
            return "REFUSED " + refused.getClass().getSimpleName() + " " + refused.getMessage();
        } catch (SQLException other) {
            return "ERROR " + other.getSQLState() + " " + other;
        }
    }
}
