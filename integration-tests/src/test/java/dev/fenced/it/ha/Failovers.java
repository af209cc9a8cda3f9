package dev.fenced.it.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.FencingException;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.Tokens;
import dev.fenced.it.support.AutoFailoverCluster;
import dev.fenced.it.support.AutoFailoverNode;
import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.HaCluster;
import dev.fenced.it.support.HaNode;
import dev.fenced.it.support.LoopbackCut;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The checks every failover test makes, whichever HA manager ({@link PatroniFailoverIT},
 * {@link PgAutoFailoverIT}): on the {@link Job}'s record, on a paused holder, on the old primary, and on what the
 * cluster kept ({@code job_audit}).
 */
final class Failovers {

    static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(120);

    private Failovers() {}

    /**
     * Cuts {@code primary}'s one streaming replica off (its replication connection, both ways, on loopback): the
     * primary goes on, and acknowledges asynchronous commits its replica will never receive.
     */
    static LoopbackCut cutReplication(HaNode primary) throws SQLException, IOException, InterruptedException {
        try (Connection c = DriverManager.getConnection(primary.jdbcUrl());
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT client_port FROM pg_stat_replication WHERE state = 'streaming'")) {
            assertTrue(rs.next(), primary.name() + " has no streaming replica to cut off");
            int clientPort = rs.getInt(1);
            assertTrue(!rs.next(), primary.name() + " has more than one replica");
            return LoopbackCut.connection(primary.pgPort(), clientPort);
        }
    }

    /** Polls the job's acknowledged writes every 20 ms until one matches, 120 s at most. */
    static Job.Ack awaitAck(Job job, Predicate<Job.Ack> wanted, String what) throws InterruptedException {
        long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
        while (true) {
            Optional<Job.Ack> ack = job.acks().stream().filter(wanted).findFirst();
            if (ack.isPresent()) {
                return ack.get();
            }
            if (System.nanoTime() - deadline > 0) {
                fail(what + ": no such acknowledged write within " + FAILOVER_TIMEOUT + "; refusals " + job.refusals()
                        + ", grants " + job.grants());
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the job's record
        }
    }

    /** The holder at the fault, paused through it, wakes in a process of its own and writes under its old token. */
    static String pausedHolderWrites(Job job, long token) throws Exception {
        try (ChildJvm child = ChildJvm.start(StaleWriterMain.class, job.dataUrl(), Long.toString(token))) {
            return child.awaitLine(Duration.ofSeconds(60), "landed", "refused");
        }
    }

    /** A grant asked of the old primary directly, now a replica: refused (the store needs a primary). */
    static String askToGrant(HaNode node) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(node.jdbcUrl());
        try (LeaseManager leases = LeaseManager.builder(ds).withoutRenewal().build()) {
            return leases.tryAcquire("probe-" + node.name(), Duration.ofSeconds(5))
                    .map(l -> "GRANTED token " + l.token())
                    .orElse("not granted (held)");
        } catch (FencingException e) {
            return "refused " + e.getSQLState();
        } catch (SQLException e) {
            return "error " + e.getSQLState() + " " + e.getMessage();
        } finally {
            FencedTestExtension.unbind();
        }
    }

    /** Which of {@code acks}' sequence numbers the cluster's primary has a row version of (its audit trail). */
    static Set<Long> survivingValues(HaCluster<?> cluster, List<Job.Ack> acks) throws SQLException {
        Set<Long> found = new HashSet<>();
        if (acks.isEmpty()) {
            return found;
        }
        long from = acks.stream().mapToLong(Job.Ack::seq).min().orElseThrow();
        long to = acks.stream().mapToLong(Job.Ack::seq).max().orElseThrow();
        try (Connection c = DriverManager.getConnection(cluster.multiHostUrl(""));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT val FROM job_audit WHERE val BETWEEN " + from + " AND " + to)) {
            while (rs.next()) {
                found.add(rs.getLong(1));
            }
        }
        return found;
    }

    /** Every row version the primary kept: each written under a token, none under a token below the one before. */
    static void assertNoStaleWriteLanded(HaCluster<?> cluster) throws SQLException {
        try (Connection c = DriverManager.getConnection(cluster.multiHostUrl(""));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE new_token IS NULL),"
                        + " count(*) FILTER (WHERE new_token < old_token), count(*) FROM job_audit")) {
            rs.next();
            assertEquals(0, rs.getLong(1), "row versions written without a token");
            assertEquals(0, rs.getLong(2), "row versions written under a token below the previous one");
            System.out.println("job_audit: " + rs.getLong(3) + " row versions kept, none unfenced or stale");
        }
    }

    /** In the order granted, every token is greater than the one before: none repeats, none goes back. */
    static void assertTokensOnlyGrow(List<Job.Grant> grants) {
        for (int i = 1; i < grants.size(); i++) {
            assertTrue(grants.get(i).token() > grants.get(i - 1).token(), "tokens in grant order: " + grants);
        }
    }

    /** Skipped here when missing, a failure in CI (.ci/run installs them). */
    static void require(boolean available, String why) {
        if (available) {
            return;
        }
        if (System.getenv("CI") != null) {
            fail(why + " (CI is set: .ci/run installs it)");
        }
        Assumptions.abort(why);
    }

    /** What kills the primary. */
    enum Fault {
        POSTMASTER("postmaster SIGKILLed"),
        NODE("whole node SIGKILLed"),
        /**
         * The replica's replication connection cut (iptables on loopback, both ways), the job writing on for about a
         * second (asynchronous: the primary acknowledges; synchronous mode: commits wait for the cut-off standby),
         * then the whole primary node SIGKILLed and the cut lifted: the lagging replica is promoted, and what the
         * primary acknowledged during the cut is lost (pg_rewind discards it when the old primary rejoins).
         */
        LAGGING_REPLICA("replica cut off, whole node SIGKILLed"),
        /**
         * pg_auto_failover's monitor SIGKILLed, run again after a while (its keepers' network partition timeout plus
         * 7 s: 10 s with the build's timing): no failover can happen meanwhile, and none must be needed. The primary
         * serves on (it still sees its standby, so it does not demote itself), fenced grants leases on it, the job's
         * writes land.
         */
        MONITOR_KILLED("monitor SIGKILLed, restarted"),
        /**
         * The primary cut off from pg_auto_failover's monitor, both ways, and from nothing else (its standby streams
         * on, the application reaches it): the monitor fails over (it tells the standby to stop replicating, which
         * leaves the primary alone, so that it demotes itself after the network partition timeout, before the monitor
         * makes the standby writable after the primary demote timeout); the cut is lifted once the old primary has
         * been replaced, and it rejoins.
         */
        PRIMARY_CUT_FROM_MONITOR("primary cut off from the monitor");

        final String description;

        Fault(String description) {
            this.description = description;
        }
    }

    /** One fault's figures. Times in ms from the fault (the kill). */
    record Case(
            String mode,
            long seed,
            Fault fault,
            long failoverMs,
            long outageMs,
            long failedWrites,
            long tokenBefore,
            long tokenAfter,
            String holderAfter,
            long driverRefusals,
            long databaseRefusals,
            String pausedHolder,
            long ackedBefore,
            long ackedLost,
            long rejoinMs,
            boolean rewound,
            String oldPrimaryGrant,
            List<String> orphansReaped,
            String remark) {

        static String header() {
            return "| mode | seed | fault | failover ms | client outage ms | failed writes | token before (tl) "
                    + "| token after (tl) | refused by driver | refused by database | paused holder's write "
                    + "| acked before fault | acked lost | rejoin ms | pg_rewind | old primary asked to grant "
                    + "| orphans SIGKILLed after 5 s | notes |\n"
                    + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
        }

        String row() {
            return String.format(
                    "| %s | %d | %s | %s | %d | %d | %d (%d) | %d (%d) %s | %d | %d | %s | %d | %d | %d | %s | %s | %s | %s |",
                    mode,
                    seed,
                    fault.description,
                    failoverMs < 0 ? "none" : Long.toString(failoverMs),
                    outageMs,
                    failedWrites,
                    tokenBefore,
                    Tokens.timelineOf(tokenBefore),
                    tokenAfter,
                    Tokens.timelineOf(tokenAfter),
                    holderAfter,
                    driverRefusals,
                    databaseRefusals,
                    pausedHolder,
                    ackedBefore,
                    ackedLost,
                    rejoinMs,
                    rewound ? "yes" : "no",
                    oldPrimaryGrant,
                    orphansReaped.isEmpty() ? "none" : orphansReaped.size() + ": " + orphansReaped,
                    remark);
        }
    }

    /** Waits for a primary and its replicas streaming; returns the primary. */
    private static <N extends HaNode> N settled(HaCluster<N> cluster) throws Exception {
        N primary = cluster.awaitPrimaryOtherThan(null, FAILOVER_TIMEOUT);
        for (N n : cluster.nodes()) {
            if (n != primary) {
                cluster.awaitReplica(n, FAILOVER_TIMEOUT);
            }
        }
        return primary;
    }

    /** The cluster's monitor: the faults that need one run on pg_auto_failover only. */
    private static AutoFailoverCluster monitored(HaCluster<?> cluster, Fault fault) {
        if (cluster instanceof AutoFailoverCluster c) {
            return c;
        }
        throw new IllegalArgumentException(fault.description + ": "
                + cluster.getClass().getSimpleName() + " has no monitor (pg_auto_failover's faults)");
    }

    static <N extends HaNode> Case runCase(
            HaCluster<N> cluster, Job job, String mode, long seed, Fault fault, Random random) throws Exception {
        if (fault == Fault.MONITOR_KILLED) {
            return monitorKilledCase(monitored(cluster, fault), job, mode, seed, random);
        }
        N old = settled(cluster);
        long caseStart = System.nanoTime();
        // the job has a holder on this primary and writes; then it runs on for 0.5 to 3 s (the seed's schedule)
        awaitAck(job, a -> a.sent() - caseStart > 0, "the job writing before the fault");
        TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(2500));
        LoopbackCut cut = fault == Fault.LAGGING_REPLICA ? Failovers.cutReplication(old) : null;
        LoopbackCut partition = null;
        long maxBefore;
        int rewindsBefore;
        long faultAt;
        List<ProcessHandle> orphans = List.of();
        try {
            if (cut != null) {
                TimeUnit.MILLISECONDS.sleep(1500); // the fault's length: the primary writes on without its replica
            }
            maxBefore = job.grants().stream().mapToLong(Job.Grant::token).max().orElseThrow();
            rewindsBefore = rewinds(cluster);
            faultAt = System.nanoTime();
            switch (fault) {
                case POSTMASTER -> orphans = old.killPostmaster();
                case NODE, LAGGING_REPLICA -> old.kill();
                case PRIMARY_CUT_FROM_MONITOR ->
                    partition = monitored(cluster, fault).cutFromMonitor((AutoFailoverNode) old);
                default -> throw new IllegalArgumentException(fault.description);
            }
        } catch (Exception | Error e) {
            if (cut != null) {
                cut.close();
            }
            throw e;
        }
        try {
            return afterFault(
                    cluster,
                    job,
                    mode,
                    seed,
                    fault,
                    old,
                    caseStart,
                    maxBefore,
                    rewindsBefore,
                    faultAt,
                    orphans,
                    partition,
                    cut);
        } finally {
            if (partition != null) {
                partition.close(); // lifted already, unless the case failed before
            }
            if (cut != null) {
                cut.close(); // likewise
            }
        }
    }

    /** A primary lost (killed, or cut off from its manager: {@code partition}): the failover and the checks. */
    private static <N extends HaNode> Case afterFault(
            HaCluster<N> cluster,
            Job job,
            String mode,
            long seed,
            Fault fault,
            N old,
            long caseStart,
            long maxGrantedBefore,
            int rewindsBefore,
            long faultAt,
            List<ProcessHandle> orphans,
            LoopbackCut partition,
            LoopbackCut replicationCut)
            throws Exception {
        // killed: writes sent before the kill returned may still be acknowledged by the dying primary: they count as
        // before. Cut off: the old primary takes writes (and may grant) until it demotes itself; then it is as if
        // killed
        long killed;
        N next;
        long promotedAt;
        String remark = "";
        if (partition == null) {
            killed = System.nanoTime();
            next = cluster.awaitPrimaryOtherThan(old, FAILOVER_TIMEOUT);
            promotedAt = System.nanoTime();
            if (replicationCut != null) {
                // Lifted only now: the killed primary's kernel still holds the WAL it could not send during the cut
                // (a SIGKILLed process's socket is closed gracefully, its send queue retransmitted), and lifted at the
                // kill it reached the replica before its promotion, losing nothing (seen once in a long run).
                replicationCut.close();
            }
        } else {
            HaCluster.Switch<N> s = cluster.awaitSwitch(old, FAILOVER_TIMEOUT);
            killed = s.oldStopped();
            next = s.next();
            promotedAt = s.nextWritable();
            long gapMs = TimeUnit.NANOSECONDS.toMillis(promotedAt - killed);
            remark = gapMs >= 0
                    ? "the old primary stopped taking writes " + TimeUnit.NANOSECONDS.toMillis(killed - faultAt)
                            + " ms after the cut, " + gapMs + " ms before the new one took them"
                    : "BOTH took writes for " + -gapMs + " ms";
        }
        long maxBefore = Math.max(
                maxGrantedBefore,
                job.grants().stream()
                        .filter(g -> g.at() - killed < 0)
                        .mapToLong(Job.Grant::token)
                        .max()
                        .orElseThrow());

        Job.Ack resumed = awaitAck(job, a -> a.sent() - faultAt > 0 && a.token() > maxBefore, "the job resumed");
        Job.Ack firstAfter = job.acks().stream()
                .filter(a -> a.sent() - killed > 0)
                .findFirst()
                .orElseThrow();
        Job.Grant granted = job.grants().stream()
                .filter(g -> g.token() > maxBefore)
                .findFirst()
                .orElseThrow();
        long holderToken = job.acks().stream()
                .filter(a -> a.sent() - killed < 0)
                .reduce((a, b) -> b)
                .orElseThrow()
                .token();
        String paused = pausedHolderWrites(job, holderToken);
        assertTrue(paused.startsWith("refused StaleTokenException"), "the paused holder's write: " + paused);

        // a killed postmaster's children should be gone by now; one that is not keeps PostgreSQL from starting there
        List<String> reaped = HaNode.reapOrphans(orphans, Duration.ofSeconds(5));
        long rejoinFrom = System.nanoTime();
        if (partition != null) {
            partition.close(); // the old primary reaches the monitor again, which has it rejoin
        } else if (fault != Fault.POSTMASTER) {
            cluster.relaunch(old);
        }
        cluster.awaitReplica(old, FAILOVER_TIMEOUT);
        long rejoinMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rejoinFrom);
        // the manager's view of the timeline, settled by now (Patroni's REST API still says the old one right after
        // the promotion): fenced reads the timeline from the WAL insert position, right from the first grant, where the
        // checkpoint's lags for up to seconds
        assertEquals(
                cluster.timelineOf(next),
                Tokens.timelineOf(granted.token()),
                "the first token on the new primary carries its timeline");
        String oldGrant = askToGrant(old);
        assertTrue(oldGrant.startsWith("refused"), "the rejoined old primary granted: " + oldGrant);

        List<Job.Ack> before = job.acks().stream()
                .filter(a -> a.at() - caseStart > 0 && a.sent() - killed < 0)
                .toList();
        long lost = lost(cluster, before);
        long driver = job.refusals().stream()
                .filter(r -> r.at() - faultAt > 0 && r.kind().contains("driver"))
                .count();
        long database = job.refusals().stream()
                .filter(r -> r.at() - faultAt > 0 && r.kind().contains("database"))
                .count();
        return new Case(
                mode,
                seed,
                fault,
                TimeUnit.NANOSECONDS.toMillis(promotedAt - faultAt),
                // cut off: from when the old primary stopped taking writes (the application saw no outage before)
                TimeUnit.NANOSECONDS.toMillis(firstAfter.at() - (partition == null ? faultAt : killed)),
                job.failuresBetween(faultAt, resumed.sent()),
                holderToken,
                granted.token(),
                granted.instance() + (firstAfter.token() == holderToken ? ", the holder kept its lease at first" : ""),
                driver,
                database,
                paused,
                before.size(),
                lost,
                rejoinMs,
                rewinds(cluster) > rewindsBefore,
                oldGrant,
                reaped,
                remark);
    }

    /**
     * {@link Fault#MONITOR_KILLED}: while the monitor is down the primary must serve on alone. Checked: no other node
     * takes writes and the primary never stops taking them (polled every 50 ms), the job's holder is never refused
     * (its renewals land), its writes are acknowledged to the end, a grant asked of the primary is made (a token above
     * every earlier one, on the same timeline), and none of the writes acknowledged since the case began is lost. Then
     * the monitor is run again and the cluster settles as it was.
     */
    private static Case monitorKilledCase(AutoFailoverCluster cluster, Job job, String mode, long seed, Random random)
            throws Exception {
        AutoFailoverNode primary = settled(cluster);
        long caseStart = System.nanoTime();
        awaitAck(job, a -> a.sent() - caseStart > 0, "the job writing before the fault");
        TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(2500));
        long maxBefore = job.grants().stream().mapToLong(Job.Grant::token).max().orElseThrow();
        Duration down = cluster.networkPartitionTimeout().plusSeconds(7);
        long faultAt = System.nanoTime();
        cluster.killMonitor();
        List<String> seen = new ArrayList<>();
        int primaryFailed = 0; // probes in a row: one may just be slow (a loaded machine), two are not
        while (System.nanoTime() - faultAt < down.toNanos()) {
            long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - faultAt);
            primaryFailed = primary.isWritablePrimary() ? 0 : primaryFailed + 1;
            if (primaryFailed == 2) {
                seen.add(at + " ms: " + primary.name() + " stopped taking writes");
            }
            for (AutoFailoverNode n : cluster.nodes()) {
                if (n != primary && n.isWritablePrimary()) {
                    seen.add(at + " ms: " + n.name() + " took writes");
                }
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling the nodes while the monitor is down
        }
        long windowEnd = System.nanoTime();
        String grant = askToGrant(primary);
        assertTrue(seen.isEmpty(), "with the monitor down: " + seen);
        assertTrue(grant.startsWith("GRANTED token "), "a grant asked of the primary, the monitor down: " + grant);
        long token = Long.parseLong(grant.substring("GRANTED token ".length()));
        assertTrue(token > maxBefore, "the grant's token " + token + " above every earlier one, " + maxBefore);
        assertEquals(Tokens.timelineOf(maxBefore), Tokens.timelineOf(token), "no new timeline: no failover");
        List<Job.Refusal> refused = job.refusals().stream()
                .filter(r -> r.at() - faultAt > 0 && windowEnd - r.at() > 0)
                .toList();
        assertTrue(refused.isEmpty(), "the job refused with the monitor down: " + refused);
        List<Job.Ack> during = job.acks().stream()
                .filter(a -> a.sent() - faultAt > 0 && windowEnd - a.at() > 0)
                .toList();
        assertTrue(
                !during.isEmpty() && windowEnd - during.get(during.size() - 1).at() < TimeUnit.SECONDS.toNanos(1),
                "the job's writes acknowledged to the end of the monitor's absence: " + during.size());
        long longestGap = 0;
        for (int i = 1; i < during.size(); i++) {
            longestGap =
                    Math.max(longestGap, during.get(i).at() - during.get(i - 1).at());
        }

        long relaunched = System.nanoTime();
        cluster.relaunchMonitor();
        for (AutoFailoverNode n : cluster.nodes()) {
            if (n != primary) {
                cluster.awaitReplica(n, FAILOVER_TIMEOUT); // the same primary, in the monitor's view too
            }
        }
        long settledMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - relaunched);
        List<Job.Ack> acked = job.acks().stream()
                .filter(a -> a.at() - caseStart > 0 && windowEnd - a.sent() > 0)
                .toList();
        long lost = lost(cluster, acked);
        assertEquals(0, lost, "acknowledged writes lost with no failover");
        return new Case(
                mode,
                seed,
                Fault.MONITOR_KILLED,
                -1,
                TimeUnit.NANOSECONDS.toMillis(longestGap),
                0,
                maxBefore,
                token,
                "(asked of the primary)",
                0,
                0,
                "–",
                acked.size(),
                lost,
                settledMs,
                false,
                "granted (still the primary)",
                List.of(),
                "monitor down " + down.toSeconds() + " s; " + during.size()
                        + " writes acknowledged meanwhile; client outage: the longest gap between them; rejoin: the"
                        + " monitor's restart to the cluster settled");
    }

    /** How many of {@code acks} the cluster's primary has no row version of. */
    private static long lost(HaCluster<?> cluster, List<Job.Ack> acks) throws SQLException {
        Set<Long> survived = survivingValues(cluster, acks);
        return acks.stream().filter(a -> !survived.contains(a.seq())).count();
    }

    /** How many times pg_rewind ran on the cluster's nodes so far (Patroni's and pg_autoctl's log lines). */
    static int rewinds(HaCluster<?> cluster) throws Exception {
        return (int) cluster.rewindLines().stream()
                .filter(l -> l.contains("running pg_rewind") || l.contains("pg_rewind --target-pgdata"))
                .count();
    }

    /** Prints {@code c} and appends its row to {@code file} (a Markdown table, its header written first). */
    static void report(Path file, Case c) throws Exception {
        System.out.println(c.row());
        Files.createDirectories(file.toAbsolutePath().getParent());
        if (!Files.exists(file)) {
            Files.writeString(file, Case.header() + "\n");
        }
        Files.writeString(file, c.row() + "\n", StandardOpenOption.APPEND);
    }

    /**
     * The job on {@code cluster} through its faults: in order first, then in seeded orders, until {@code seconds}
     * are up (at least once each); each case reported to {@code report} and checked (synchronous: no acknowledged
     * write lost; asynchronous, {@link Fault#LAGGING_REPLICA}: some lost, as the fault is made to); at the end every
     * grant's token above the one before, no stale or unfenced row version kept, and every acknowledged write of the
     * run looked up (those lost before a fault reported by fault).
     */
    static List<Case> faultRun(
            HaCluster<?> cluster,
            String label,
            long seed,
            List<Fault> faults,
            boolean synchronous,
            long seconds,
            Path report)
            throws Exception {
        Random random = new Random(seed);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Case> cases = new ArrayList<>();
        try (Job job = Job.start(cluster)) {
            int round = 0;
            do {
                List<Fault> order = new ArrayList<>(faults);
                if (round++ > 0) {
                    Collections.shuffle(order, random);
                }
                for (Fault fault : order) {
                    Case c = runCase(cluster, job, label, seed, fault, random);
                    report(report, c);
                    cases.add(c);
                    if (synchronous) {
                        assertEquals(0, c.ackedLost(), label + " lost acknowledged writes: " + c.row());
                    } else if (fault == Fault.LAGGING_REPLICA) {
                        // the fault is made to lose them: a run where it did not would show nothing
                        assertTrue(c.ackedLost() > 0, "the cut-off replica was promoted with every write: " + c.row());
                    }
                }
            } while (System.nanoTime() < end);
            assertTokensOnlyGrow(job.grants());
            assertNoStaleWriteLanded(cluster);
            // every write the job was told had committed, over the whole run, against what the cluster kept
            List<Job.Ack> acks = job.acks();
            Set<Long> kept = survivingValues(cluster, acks);
            long lost = acks.stream().filter(a -> !kept.contains(a.seq())).count();
            Map<String, Long> lostByFault = new TreeMap<>();
            cases.forEach(c -> lostByFault.merge(c.fault().description, c.ackedLost(), Long::sum));
            double minutes = acks.size() < 2
                    ? 0
                    : (acks.get(acks.size() - 1).at() - acks.get(0).at()) / 60e9;
            String total = String.format(
                    "%s, seed %d: %d faults, %d grants, %d writes acknowledged (%.0f a minute over %.1f minutes), %d"
                            + " of them lost; acknowledged before a fault and lost, by fault: %s%n",
                    label,
                    seed,
                    cases.size(),
                    job.grants().size(),
                    acks.size(),
                    minutes == 0 ? 0 : acks.size() / minutes,
                    minutes,
                    lost,
                    lostByFault);
            System.out.print(total);
            Files.writeString(report, "\n" + total + "\n", StandardOpenOption.APPEND);
            if (synchronous) {
                assertEquals(0, lost, total);
            }
        }
        return cases;
    }
}
