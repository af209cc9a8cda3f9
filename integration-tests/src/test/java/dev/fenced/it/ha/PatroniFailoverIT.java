package dev.fenced.it.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.FencingException;
import dev.fenced.LeaseManager;
import dev.fenced.internal.lease.Tokens;
import dev.fenced.it.support.ChildJvm;
import dev.fenced.it.support.EtcdCluster;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.PatroniCluster;
import dev.fenced.it.support.PatroniNode;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * fenced's leases and fencing under PostgreSQL HA as teams run it: Patroni on a three-member etcd, a primary and a
 * replica, the application ({@link Job}: two instances of one job taking turns at one lease) on pgjdbc's multi-host
 * URL. For asynchronous replication and for {@code synchronous_mode: true}, the primary's postmaster is SIGKILLed
 * (Patroni fails over: {@code master_start_timeout: 0}) and then the whole primary node (Patroni, postmaster and
 * backends at once: failover after the leader key's ttl). Each time: the holder at the fault loses its lease and its
 * next write is refused by the driver; a paused holder (a child JVM that never learnt of the loss) writing under the
 * old token is refused by the database; the next grant, on the new primary, has a strictly greater token whose
 * timeline is the new primary's; the job resumes; the old primary rejoins as a replica (by {@code pg_rewind} when its
 * WAL diverged) and refuses to grant. Measured and reported per case (stdout and
 * {@code target/patroni-failover.md}): failover time, client outage, tokens, refusals, acknowledged writes lost
 * (expected only without synchronous mode: reported there, asserted 0 with it).
 *
 * <p>Short by default (one case of each fault per mode, Patroni's timing shortened to ttl 10 s, loop_wait 2 s). The
 * long run: {@code -Dfencedtest.patroni.seconds=N} (cases until N seconds per mode and seed),
 * {@code -Dfencedtest.patroni.seeds=1,2,3} and {@code -Dfencedtest.patroni.timing=defaults} (Patroni's own ttl 30 s,
 * loop_wait 10 s, retry_timeout 10 s); see docs/ha-patroni.md.
 */
class PatroniFailoverIT {

    static final Path REPORT = Path.of("target", "patroni-failover.md");
    static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(120);

    enum Fault {
        POSTMASTER("postmaster SIGKILLed"),
        NODE("whole node SIGKILLed");

        final String description;

        Fault(String description) {
            this.description = description;
        }
    }

    /** One fault's figures. Times in ms from the fault. */
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

    static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        require(EtcdCluster.binaryPresent(), "etcd is not installed (apt-get install -y etcd-server)");
        require(PatroniCluster.binariesPresent(), "Patroni is not installed (apt-get install -y patroni)");
        etcd = EtcdCluster.start("fenced-ha", 3);
    }

    @AfterAll
    static void stopEtcd() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void asynchronousReplication() throws Exception {
        run(false);
    }

    @Test
    void synchronousMode() throws Exception {
        run(true);
    }

    private void run(boolean synchronous) throws Exception {
        String mode = synchronous ? "synchronous_mode" : "async";
        long seconds = Long.getLong("fencedtest.patroni.seconds", 0);
        boolean defaults = "defaults".equals(System.getProperty("fencedtest.patroni.timing", "fast"));
        PatroniCluster.Options options = defaults
                ? PatroniCluster.Options.defaults(synchronous)
                : new PatroniCluster.Options(synchronous, 10, 2, 3);
        List<Case> cases = new ArrayList<>();
        for (String s : System.getProperty("fencedtest.patroni.seeds", "1").split(",")) {
            long seed = Long.parseLong(s.trim());
            Random random = new Random(seed);
            String scope = "fenced-" + (synchronous ? "sync" : "async") + "-" + seed;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            int casesBefore = cases.size();
            try (PatroniCluster cluster = PatroniCluster.start(scope, etcd, options, 2);
                    Job job = Job.start(cluster)) {
                int round = 0;
                do {
                    List<Fault> order = new ArrayList<>(List.of(Fault.POSTMASTER, Fault.NODE));
                    if (round++ > 0 && random.nextBoolean()) {
                        Collections.reverse(order);
                    }
                    for (Fault fault : order) {
                        Case c = runCase(cluster, job, mode, seed, fault, random);
                        report(c);
                        cases.add(c);
                        if (synchronous) {
                            assertEquals(0, c.ackedLost(), "synchronous_mode lost acknowledged writes: " + c.row());
                        }
                    }
                } while (System.nanoTime() < end);
                assertTokensOnlyGrow(job.grants());
                assertNoStaleWriteLanded(cluster);
                // every write the job was told had committed, over the whole run, against what the cluster kept
                List<Job.Ack> acks = job.acks();
                Set<Long> kept = survivingValues(cluster, acks);
                long lost = acks.stream().filter(a -> !kept.contains(a.seq())).count();
                String total = String.format(
                        "patroni %s, seed %d: %d faults, %d grants, %d writes acknowledged, %d of them lost%n",
                        mode, seed, cases.size() - casesBefore, job.grants().size(), acks.size(), lost);
                System.out.print(total);
                Files.writeString(REPORT, "\n" + total + "\n", StandardOpenOption.APPEND);
                if (synchronous) {
                    assertEquals(0, lost, total);
                }
            }
        }
        System.out.println("patroni " + mode + ": " + cases.size() + " faults; acknowledged writes lost "
                + cases.stream().mapToLong(Case::ackedLost).sum() + " of "
                + cases.stream().mapToLong(Case::ackedBefore).sum());
    }

    private Case runCase(PatroniCluster cluster, Job job, String mode, long seed, Fault fault, Random random)
            throws Exception {
        PatroniNode old = cluster.awaitLeader(FAILOVER_TIMEOUT);
        for (PatroniNode n : cluster.nodes()) {
            if (n != old) {
                cluster.awaitReplica(n, FAILOVER_TIMEOUT);
            }
        }
        long caseStart = System.nanoTime();
        // the job has a holder on this primary and writes; then it runs on for 0.5 to 3 s (the seed's schedule)
        awaitAck(job, a -> a.sent() - caseStart > 0, "the job writing before the fault");
        TimeUnit.MILLISECONDS.sleep(500 + random.nextInt(2500));
        long maxBefore = job.grants().stream().mapToLong(Job.Grant::token).max().orElseThrow();
        int rewindsBefore = rewinds(cluster);

        long faultAt = System.nanoTime();
        List<ProcessHandle> orphans = List.of();
        if (fault == Fault.POSTMASTER) {
            orphans = old.killPostmaster();
        } else {
            old.kill();
        }
        // writes sent before the kill returned may still be acknowledged by the dying primary: they count as before
        long killed = System.nanoTime();
        PatroniNode next = cluster.awaitLeaderOtherThan(old, FAILOVER_TIMEOUT);
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
        List<String> reaped = PatroniNode.reapOrphans(orphans, Duration.ofSeconds(5));
        long rejoinFrom = System.nanoTime();
        if (fault == Fault.NODE) {
            cluster.relaunch(old);
        }
        cluster.awaitReplica(old, FAILOVER_TIMEOUT);
        long rejoinMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rejoinFrom);
        // Patroni's own view of the timeline, settled by now (its REST API still says the old one right after the
        // promotion): fenced reads the timeline from the WAL insert position, right from the first grant, where the
        // checkpoint's lags for up to seconds
        assertEquals(
                next.timeline().orElseThrow(),
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

    /** Polls the job's acknowledged writes every 20 ms until one matches, 120 s at most. */
    private static Job.Ack awaitAck(Job job, Predicate<Job.Ack> wanted, String what) throws InterruptedException {
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
    private static String pausedHolderWrites(Job job, long token) throws Exception {
        try (ChildJvm child = ChildJvm.start(StaleWriterMain.class, job.dataUrl(), Long.toString(token))) {
            return child.awaitLine(Duration.ofSeconds(60), "landed", "refused");
        }
    }

    /** A grant asked of the old primary directly, now a replica: refused (the store needs a primary). */
    private static String askToGrant(PatroniNode node) {
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
    private static Set<Long> survivingValues(PatroniCluster cluster, List<Job.Ack> acks) throws SQLException {
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
    private static void assertNoStaleWriteLanded(PatroniCluster cluster) throws SQLException {
        try (Connection c = DriverManager.getConnection(cluster.multiHostUrl(""));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE new_token IS NULL),"
                        + " count(*) FILTER (WHERE new_token < old_token), count(*) FROM job_audit")) {
            rs.next();
            assertEquals(0, rs.getLong(1), "row versions written without a token");
            assertEquals(0, rs.getLong(2), "row versions written under a token below the previous one");
            System.out.println("patroni: " + rs.getLong(3) + " row versions kept, none unfenced or stale");
        }
    }

    /** In the order granted, every token is greater than the one before: none repeats, none goes back. */
    private static void assertTokensOnlyGrow(List<Job.Grant> grants) {
        for (int i = 1; i < grants.size(); i++) {
            assertTrue(grants.get(i).token() > grants.get(i - 1).token(), "tokens in grant order: " + grants);
        }
    }

    private static int rewinds(PatroniCluster cluster) throws Exception {
        return (int) cluster.rewindLines().stream()
                .filter(l -> l.contains("running pg_rewind"))
                .count();
    }

    private static void report(Case c) throws Exception {
        System.out.println("patroni: " + c);
        Files.createDirectories(REPORT.toAbsolutePath().getParent());
        if (!Files.exists(REPORT)) {
            Files.writeString(REPORT, Case.header() + "\n");
        }
        Files.writeString(REPORT, c.row() + "\n", StandardOpenOption.APPEND);
    }

    /** Skipped here when missing, a failure in CI (.ci/run installs them). */
    private static void require(boolean available, String why) {
        if (available) {
            return;
        }
        if (System.getenv("CI") != null) {
            fail(why + " (CI is set: .ci/run installs it)");
        }
        Assumptions.abort(why);
    }
}
