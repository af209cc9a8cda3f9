package dev.fenced.it.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.FencingException;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.Tokens;
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
import java.util.Optional;
import java.util.Random;
import java.util.Set;
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
        LAGGING_REPLICA("replica cut off, whole node SIGKILLed");

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
            List<String> orphansReaped) {

        static String header() {
            return "| mode | seed | fault | failover ms | client outage ms | failed writes | token before (tl) "
                    + "| token after (tl) | refused by driver | refused by database | paused holder's write "
                    + "| acked before fault | acked lost | rejoin ms | pg_rewind | old primary asked to grant "
                    + "| orphans SIGKILLed after 5 s |\n"
                    + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
        }

        String row() {
            return String.format(
                    "| %s | %d | %s | %d | %d | %d | %d (%d) | %d (%d) %s | %d | %d | %s | %d | %d | %d | %s | %s | %s |",
                    mode,
                    seed,
                    fault.description,
                    failoverMs,
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
                    orphansReaped.isEmpty() ? "none" : orphansReaped.size() + ": " + orphansReaped);
        }
    }

    static <N extends HaNode> Case runCase(
            HaCluster<N> cluster, Job job, String mode, long seed, Fault fault, Random random) throws Exception {
        N old = cluster.awaitPrimaryOtherThan(null, FAILOVER_TIMEOUT);
        for (N n : cluster.nodes()) {
            if (n != old) {
                cluster.awaitReplica(n, FAILOVER_TIMEOUT);
            }
        }
        long caseStart = System.nanoTime();
        // the job has a holder on this primary and writes; then it runs on for 0.5 to 3 s (the seed's schedule)
        awaitAck(job, a -> a.sent() - caseStart > 0, "the job writing before the fault");
        TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(2500));
        LoopbackCut cut = fault == Fault.LAGGING_REPLICA ? Failovers.cutReplication(old) : null;
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
            if (fault == Fault.POSTMASTER) {
                orphans = old.killPostmaster();
            } else {
                old.kill();
            }
        } finally {
            if (cut != null) {
                cut.close(); // the primary is gone: nothing it sent during the cut can reach the replica now
            }
        }
        // writes sent before the kill returned may still be acknowledged by the dying primary: they count as before
        long killed = System.nanoTime();
        N next = cluster.awaitPrimaryOtherThan(old, FAILOVER_TIMEOUT);
        long promotedAt = System.nanoTime();

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
        if (fault != Fault.POSTMASTER) {
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
        Set<Long> survived = survivingValues(cluster, before);
        long lost = before.stream().filter(a -> !survived.contains(a.seq())).count();
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
                TimeUnit.NANOSECONDS.toMillis(firstAfter.at() - faultAt),
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
                reaped);
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
     * run looked up (lost ones reported apart: those of {@link Fault#LAGGING_REPLICA} cases and the others).
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
            long lostLagging = cases.stream()
                    .filter(c -> c.fault() == Fault.LAGGING_REPLICA)
                    .mapToLong(Case::ackedLost)
                    .sum();
            String total = String.format(
                    "%s, seed %d: %d faults, %d grants, %d writes acknowledged, %d of them lost (%d in the cases of a"
                            + " cut-off replica)%n",
                    label, seed, cases.size(), job.grants().size(), acks.size(), lost, lostLagging);
            System.out.print(total);
            Files.writeString(report, "\n" + total + "\n", StandardOpenOption.APPEND);
            if (synchronous) {
                assertEquals(0, lost, total);
            }
        }
        return cases;
    }
}
