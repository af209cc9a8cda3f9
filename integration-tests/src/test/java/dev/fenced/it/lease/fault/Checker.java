package dev.fenced.it.lease.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges one fault run from the holders' histories and the database's own audit trail: every row version of
 * the data (trigger on {@code cells}) and every change of a lease row (trigger on {@code fenced_lease}).
 *
 * <p>Safety, each a count that must be 0 for a fenced run:
 * <ul>
 *   <li>stale overwrites accepted: a row version whose token is lower than the one it replaced;</li>
 *   <li>tokens granted twice: a token in more than one grant (the lease audit, and the histories);</li>
 *   <li>tokens out of order: a name's grant whose token does not exceed its previous grant's;</li>
 *   <li>grants ordered in real time (the first acknowledged before the second was asked for, by the holders'
 *   histories, so across a failover too) whose tokens do not increase;</li>
 *   <li>acknowledged writes lost: a write a holder saw succeed that no row version shows (in the asynchronous
 *   standby topology those acknowledged before the promotion are expected of the topology and counted apart);</li>
 *   <li>writes sent after the deadline: a write the holder handed to the driver later than its lease's local
 *   deadline plus {@value #SENT_AFTER_DEADLINE_TOLERANCE_MS} ms that the driver did not refuse. The holder reads
 *   the clock before the call and the deadline after it (a deadline only moves later), and the driver compares
 *   the deadline itself after that, so 0 is exact for a correct driver and no tolerance is needed.</li>
 * </ul>
 * Availability, p50/p99/max and as multiples of the ttl: the time from a holder's loss (SIGKILL, or a SIGSTOP
 * longer than the ttl, while it held a lease) to the next grant of that name to another holder; poison latency
 * (the lease's local deadline to the holder's {@code onLost} callback); the time from a network heal to the first
 * renewal a holder saw.
 * Reported besides: writes the database accepted after their lease had expired there (the fence allows them
 * while no newer token wrote the row; the count and the worst lateness tell how far local deadlines lag),
 * operations by outcome, faults by kind with durations, and recovery: time from a fault's end to the next
 * acknowledged write, p50/p99/max.
 */
public final class Checker {

    /** The kind of the promotion fault (the standby topologies). */
    static final String PROMOTION = "promotion of the standby";

    static final long SENT_AFTER_DEADLINE_TOLERANCE_MS = 0;

    private record Write(
            String holder,
            String name,
            long token,
            long t0,
            long t1,
            long value,
            String outcome,
            long sentNanos,
            long deadlineNanos) {}

    private record Grant(String holder, long op, String name, long token, long t0, long t1) {}

    private record Loss(String holder, String name, long token, long atMicros, long latencyNanos) {}

    private record Version(int id, Long oldToken, Long newToken, long newVal, long atMicros) {}

    private record LeaseEvent(String name, long token, String kind, long expiresMicros, long atMicros) {}

    /** The verdict. */
    public record Report(
            boolean fenced,
            long staleOverwrites,
            long tokensGrantedTwice,
            long tokensOutOfOrder,
            long acknowledgedWritesLost,
            long acceptedAfterExpiry,
            long historyOutOfOrder,
            long writesSentAfterDeadline,
            long lostOnAsyncFailover,
            String markdown) {}

    private final FaultRun.Setup setup;
    private final List<FaultRun.Fault> faults;
    private final List<Path> histories;
    private final PgServer server;

    Checker(FaultRun.Setup setup, List<FaultRun.Fault> faults, List<Path> histories, PgServer server) {
        this.setup = setup;
        this.faults = faults;
        this.histories = histories;
        this.server = server;
    }

    Report check() throws IOException, SQLException {
        List<Write> writes = new ArrayList<>();
        List<Grant> grants = new ArrayList<>();
        List<Loss> losses = new ArrayList<>();
        List<Long> renewals = new ArrayList<>();
        List<Long> historyGrants = new ArrayList<>();
        Map<String, Integer> outcomes = new TreeMap<>();
        for (Path h : histories) {
            for (String line : Files.readAllLines(h)) {
                String[] f = line.split(" ");
                if (f[0].equals("grant") && f.length >= 7) {
                    historyGrants.add(Long.parseLong(f[4]));
                    grants.add(new Grant(
                            f[1],
                            Long.parseLong(f[2]),
                            f[3],
                            Long.parseLong(f[4]),
                            Long.parseLong(f[5]),
                            Long.parseLong(f[6])));
                    outcomes.merge("grant", 1, Integer::sum);
                } else if (f[0].equals("write") && f.length >= 11) {
                    writes.add(new Write(
                            f[1],
                            f[3],
                            Long.parseLong(f[4]),
                            Long.parseLong(f[5]),
                            Long.parseLong(f[6]),
                            Long.parseLong(f[7]),
                            f[8],
                            Long.parseLong(f[9]),
                            Long.parseLong(f[10])));
                    outcomes.merge("write " + f[8], 1, Integer::sum);
                } else if (f[0].equals("member") && f.length >= 6) {
                    // a holder's long-lived lease (the renewal figures): its token counts in the grant checks too
                    historyGrants.add(Long.parseLong(f[4]));
                    outcomes.merge("grant of a member lease", 1, Integer::sum);
                } else if (f[0].equals("lost") && f.length >= 8) {
                    losses.add(new Loss(
                            f[1],
                            f[3],
                            Long.parseLong(f[4]),
                            Long.parseLong(f[5]),
                            Long.parseLong(f[6]) - Long.parseLong(f[7])));
                } else if (f[0].equals("renew") && f.length >= 6) {
                    renewals.add(Long.parseLong(f[5]));
                } else if (f[0].equals("grant-error") && f.length >= 7) {
                    String kind = f[6].contains(":") ? f[6].substring(0, f[6].indexOf(':')) : f[6];
                    outcomes.merge("grant error " + kind, 1, Integer::sum);
                }
            }
        }
        List<Version> versions = new ArrayList<>();
        List<LeaseEvent> leaseEvents = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(server.url("postgres"));
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT id, old_token, new_token, new_val,"
                    + " (extract(epoch FROM at) * 1000000)::bigint FROM audit ORDER BY seq")) {
                while (rs.next()) {
                    versions.add(new Version(
                            rs.getInt(1),
                            (Long) rs.getObject(2),
                            (Long) rs.getObject(3),
                            rs.getLong(4),
                            rs.getLong(5)));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT name, token, kind, CASE WHEN expires_at = '-infinity' THEN 0"
                    + " ELSE (extract(epoch FROM expires_at) * 1000000)::bigint END,"
                    + " (extract(epoch FROM at) * 1000000)::bigint FROM lease_audit ORDER BY seq")) {
                while (rs.next()) {
                    leaseEvents.add(new LeaseEvent(
                            rs.getString(1), rs.getLong(2), rs.getString(3), rs.getLong(4), rs.getLong(5)));
                }
            }
        }

        long stale = versions.stream()
                .filter(v -> v.oldToken != null && v.newToken != null && v.newToken < v.oldToken)
                .count();
        Map<Long, Integer> grantsPerToken = new HashMap<>();
        Map<String, Long> lastTokenOfName = new HashMap<>();
        long outOfOrder = 0;
        for (LeaseEvent e : leaseEvents) {
            if (e.kind.equals("grant")) {
                grantsPerToken.merge(e.token, 1, Integer::sum);
                Long previous = lastTokenOfName.put(e.name, e.token);
                if (previous != null && e.token <= previous) {
                    outOfOrder++;
                }
            }
        }
        long twice = grantsPerToken.values().stream().filter(n -> n > 1).count()
                + (historyGrants.size() - new HashSet<>(historyGrants).size());
        Set<String> landed = new HashSet<>();
        for (Version v : versions) {
            landed.add(v.id + ":" + v.newToken + ":" + v.newVal);
        }
        // An asynchronous standby may miss what the old primary acknowledged before the promotion: the topology's
        // known loss, counted apart. Anything acknowledged after it (or with a synchronous standby) counts.
        long promotedAt = setup.topology() == FaultRun.Topology.ASYNC_STANDBY
                ? faults.stream()
                        .filter(f -> f.kind().equals(PROMOTION))
                        .mapToLong(FaultRun.Fault::endMicros)
                        .findFirst()
                        .orElse(Long.MIN_VALUE)
                : Long.MIN_VALUE;
        List<Write> missing = writes.stream()
                .filter(w -> w.outcome.equals("ok"))
                .filter(w -> !landed.contains(w.name.substring("row-".length()) + ":" + w.token + ":" + w.value))
                .toList();
        long lostOnFailover = missing.stream().filter(w -> w.t1 < promotedAt).count();
        long lost = missing.size() - lostOnFailover;
        long historyOutOfOrder = outOfOrderInRealTime(grants);
        long tolerance = SENT_AFTER_DEADLINE_TOLERANCE_MS * 1_000_000L;
        List<Write> late = writes.stream()
                .filter(w -> w.sentNanos != 0 && !w.outcome.equals("lost"))
                .filter(w -> w.sentNanos - w.deadlineNanos > tolerance)
                .toList();
        long worstSentLate = late.stream()
                .mapToLong(w -> w.sentNanos - w.deadlineNanos)
                .max()
                .orElse(0);
        // The database's own view: the expiry its lease row had for the token when the write landed.
        Map<Long, List<LeaseEvent>> byToken = new HashMap<>();
        for (LeaseEvent e : leaseEvents) {
            byToken.computeIfAbsent(e.token, k -> new ArrayList<>()).add(e);
        }
        long afterExpiry = 0;
        long worstLateMicros = 0;
        for (Version v : versions) {
            if (v.newToken == null) {
                continue;
            }
            long expiry = Long.MIN_VALUE;
            for (LeaseEvent e : byToken.getOrDefault(v.newToken, List.of())) {
                if (e.atMicros <= v.atMicros) {
                    expiry = e.kind.equals("release") ? e.atMicros : e.expiresMicros;
                }
            }
            if (expiry != Long.MIN_VALUE && v.atMicros > expiry) {
                afterExpiry++;
                worstLateMicros = Math.max(worstLateMicros, v.atMicros - expiry);
            }
        }

        StringBuilder md = new StringBuilder();
        md.append("### ")
                .append(setup.fenced() ? "fenced" : "control (lease alone, no fencing)")
                .append(" run, seed ")
                .append(setup.seed())
                .append(
                        setup.topology() == FaultRun.Topology.SINGLE
                                ? ""
                                : ", " + setup.topology().name().toLowerCase().replace('_', ' '))
                .append("\n\n");
        md.append("Setup: ")
                .append(setup.holders())
                .append(" holder JVMs, ")
                .append(setup.rows())
                .append(" rows, ttl ")
                .append(setup.ttl().toMillis())
                .append(" ms, ")
                .append(setup.length().toSeconds())
                .append(" s of faults; ")
                .append(setup.topology().description)
                .append(" (embedded PostgreSQL binaries, synchronous_commit=off; data written with on).\n\n");
        md.append("| operations | count |\n|---|---|\n");
        outcomes.forEach(
                (k, n) -> md.append("| ").append(k).append(" | ").append(n).append(" |\n"));
        md.append("| row versions (audit) | ").append(versions.size()).append(" |\n");
        md.append("\n| fault | count | total s | max s |\n|---|---|---|---|\n");
        Map<String, long[]> byKind = new TreeMap<>();
        for (FaultRun.Fault f : faults) {
            long[] a = byKind.computeIfAbsent(f.kind(), k -> new long[3]);
            long d = f.endMicros() - f.startMicros();
            a[0]++;
            a[1] += d;
            a[2] = Math.max(a[2], d);
        }
        byKind.forEach(
                (k, a) -> md.append(String.format("| %s | %d | %.1f | %.1f |%n", k, a[0], a[1] / 1e6, a[2] / 1e6)));
        md.append("\n| safety check | count |\n|---|---|\n");
        md.append("| stale overwrites accepted | ").append(stale).append(" |\n");
        md.append("| tokens granted twice | ").append(twice).append(" |\n");
        md.append("| grants whose token did not exceed the name's previous one | ")
                .append(outOfOrder)
                .append(" |\n");
        md.append("| grants ordered in real time (histories) whose tokens did not increase | ")
                .append(historyOutOfOrder)
                .append(" |\n");
        md.append("| acknowledged writes lost | ").append(lost).append(" |\n");
        md.append("| writes sent after their lease's local deadline + ")
                .append(SENT_AFTER_DEADLINE_TOLERANCE_MS)
                .append(" ms | ")
                .append(late.size())
                .append(late.isEmpty() ? "" : String.format(" (worst %.0f ms after)", worstSentLate / 1e6))
                .append(" |\n");
        if (setup.topology() == FaultRun.Topology.ASYNC_STANDBY) {
            md.append("| acknowledged writes lost on the asynchronous failover (the topology's, reported) | ")
                    .append(lostOnFailover)
                    .append(" |\n");
        }
        md.append("| writes accepted after their lease expired in the database (reported) | ")
                .append(afterExpiry)
                .append(afterExpiry > 0 ? String.format(" (worst %.0f ms late)", worstLateMicros / 1e3) : "")
                .append(" |\n");
        long[] recovery = recoveries(writes);
        md.append(String.format(
                "%nRecovery (fault end to the next acknowledged write), %d faults: p50 %.0f ms, p99 %.0f ms,"
                        + " max %.0f ms.%n",
                recovery.length, pct(recovery, 50), pct(recovery, 99), pct(recovery, 100)));
        md.append(availability(grants, writes, losses, renewals));
        return new Report(
                setup.fenced(),
                stale,
                twice,
                outOfOrder,
                lost,
                afterExpiry,
                historyOutOfOrder,
                late.size(),
                lostOnFailover,
                md.toString());
    }

    /** Grants of one name where the first was acknowledged before the second was asked for, yet its token is not lower. */
    private static long outOfOrderInRealTime(List<Grant> grants) {
        Map<String, List<Grant>> byName = new TreeMap<>();
        for (Grant g : grants) {
            byName.computeIfAbsent(g.name, k -> new ArrayList<>()).add(g);
        }
        long bad = 0;
        for (List<Grant> gs : byName.values()) {
            List<Grant> byEnd =
                    gs.stream().sorted((a, b) -> Long.compare(a.t1, b.t1)).toList();
            List<Grant> byStart =
                    gs.stream().sorted((a, b) -> Long.compare(a.t0, b.t0)).toList();
            long highestEnded = Long.MIN_VALUE;
            int e = 0;
            for (Grant g : byStart) {
                while (e < byEnd.size() && byEnd.get(e).t1 < g.t0) {
                    highestEnded = Math.max(highestEnded, byEnd.get(e).token);
                    e++;
                }
                if (highestEnded >= g.token) {
                    bad++;
                }
            }
        }
        return bad;
    }

    private String availability(List<Grant> grants, List<Write> writes, List<Loss> losses, List<Long> renewals) {
        double ttlMs = setup.ttl().toMillis();
        // A holder lost while it held a lease: the next grant of that name to another holder.
        List<Long> takeovers = new ArrayList<>();
        for (FaultRun.Fault f : faults) {
            boolean kill = f.kind().equals("SIGKILL holder");
            boolean longStop = f.kind().startsWith("SIGSTOP holder")
                    && f.endMicros() - f.startMicros() > setup.ttl().toNanos() / 1000;
            if (!kill && !longStop) {
                continue;
            }
            String holder = f.target().substring("holder ".length());
            Grant last = null;
            for (Grant g : grants) {
                if (g.holder.equals(holder) && g.t1 <= f.startMicros() && (last == null || g.t1 > last.t1)) {
                    last = g;
                }
            }
            if (last == null) {
                continue;
            }
            Grant held = last;
            boolean done = writes.stream()
                    .anyMatch(w -> w.holder.equals(holder) && w.token == held.token && w.t1 <= f.startMicros());
            if (done) {
                continue; // it had written and released before the fault
            }
            grants.stream()
                    .filter(g -> g.name.equals(held.name) && !g.holder.equals(holder) && g.t1 > f.startMicros())
                    .mapToLong(g -> g.t1 - f.startMicros())
                    .min()
                    .ifPresent(takeovers::add);
        }
        long[] takeover = takeovers.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] poison = losses.stream()
                .filter(l -> l.latencyNanos >= 0)
                .mapToLong(l -> l.latencyNanos / 1000)
                .sorted()
                .toArray();
        long early = losses.stream().filter(l -> l.latencyNanos < 0).count();
        long[] sortedRenewals =
                renewals.stream().mapToLong(Long::longValue).sorted().toArray();
        List<Long> afterHeal = new ArrayList<>();
        for (FaultRun.Fault f : faults) {
            if (f.kind().equals("network stall")) {
                int i = Arrays.binarySearch(sortedRenewals, f.endMicros());
                int at = i >= 0 ? i : -i - 1;
                if (at < sortedRenewals.length) {
                    afterHeal.add(sortedRenewals[at] - f.endMicros());
                }
            }
        }
        long[] heal = afterHeal.stream().mapToLong(Long::longValue).sorted().toArray();
        StringBuilder md = new StringBuilder(String.format(
                "%n| availability (ttl %.0f ms) | n | p50 | p99 | max |%n" + "|---|---|---|---|---|%n", ttlMs));
        md.append(row(
                "holder lost (SIGKILL, or SIGSTOP > ttl, holding a lease) to the next grant of its name",
                takeover,
                ttlMs));
        md.append(row("poison latency: local deadline to the holder's onLost", poison, ttlMs));
        md.append(row("network heal to the first renewal a holder saw", heal, ttlMs));
        md.append(String.format(
                "%nLosses before the local deadline (a renewal found the lease gone): %d of %d.%n",
                early, losses.size()));
        return md.toString();
    }

    private static String row(String what, long[] sortedMicros, double ttlMs) {
        if (sortedMicros.length == 0) {
            return "| " + what + " | 0 | | | |\n";
        }
        return String.format(
                "| %s | %d | %.0f ms (%.2f ttl) | %.0f ms (%.2f ttl) | %.0f ms (%.2f ttl) |%n",
                what,
                sortedMicros.length,
                pct(sortedMicros, 50),
                pct(sortedMicros, 50) / ttlMs,
                pct(sortedMicros, 99),
                pct(sortedMicros, 99) / ttlMs,
                pct(sortedMicros, 100),
                pct(sortedMicros, 100) / ttlMs);
    }

    private long[] recoveries(List<Write> writes) {
        long[] ok = writes.stream()
                .filter(w -> w.outcome.equals("ok"))
                .mapToLong(Write::t1)
                .sorted()
                .toArray();
        List<Long> out = new ArrayList<>();
        for (FaultRun.Fault f : faults) {
            int i = Arrays.binarySearch(ok, f.endMicros());
            int at = i >= 0 ? i : -i - 1;
            if (at < ok.length) {
                out.add(ok[at] - f.endMicros());
            }
        }
        return out.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static double pct(long[] sorted, int p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e3;
    }
}
