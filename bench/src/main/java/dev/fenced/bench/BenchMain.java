package dev.fenced.bench;

import dev.fenced.FencedStats;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The one command: {@code java -jar bench/target/fenced-bench.jar [--quick] [--jdbc-url URL] [--only g1,g2]
 * [--out DIR] [--max-load X] [--wait-load SECONDS] [--rounds N] [--round-ms MS]}.
 *
 * <p>Starts one embedded PostgreSQL (or uses {@code --jdbc-url}), then runs every group of benchmarks as JMH runs
 * inside this JVM ({@code forks(0)}), in short alternating rounds: round r runs each path of a group once, for
 * one short iteration, starting with a different path each round. Drift (the machine, autovacuum, the JIT,
 * another process) then hits every path alike, and the ratio of two paths within one round is steady even when
 * the absolute figures wander. Reported: the median of the per-round ratios with their spread, client CPU per
 * operation (benchmark threads only, {@link ClientCpuProfiler}), allocation per operation (JMH's
 * {@code gc.alloc.rate.norm}), and how many statements fenced parsed during the measured rounds.
 */
public final class BenchMain {

    private static final OutputFormat SILENT = OutputFormatFactory.createFormatInstance(
            new PrintStream(OutputStream.nullOutputStream()), VerboseMode.SILENT);

    /** One path of a group: a benchmark method. */
    record Variant(String key, String method, String label) {}

    /** A ratio checked per round: throughput num/den (at least minRatio) and client CPU num-den (at most maxCpuDelta). */
    record Comparison(String num, String den, double minRatio, double maxCpuDelta) {}

    record Plan(int warmRounds, int rounds, int roundMs) {}

    record Group(
            String id,
            String title,
            Class<?> bench,
            int threads,
            boolean throughput,
            String unit,
            List<Variant> variants,
            List<Comparison> comparisons,
            Plan full,
            Plan quick) {
        /** Whether each path is itself a pair X vs Y timed block by block ({@link PairedUpdateBench}). */
        boolean paired() {
            return bench == PairedUpdateBench.class;
        }

        Variant variant(String key) {
            return variants.stream()
                    .filter(v -> v.key().equals(key))
                    .findFirst()
                    .orElseThrow();
        }
    }

    /** What one JMH run (one path, one round) measured. */
    record Outcome(
            double score,
            double cpuMicros,
            double clientAlloc,
            double gcAllocNorm,
            long ops,
            long parses,
            double load,
            Map<String, ?> secondary) {
        /** A secondary result by the end of its name (JMH prefixes the benchmark's), NaN when absent. */
        double aux(String name) {
            return BenchMain.score(secondary, name);
        }
    }

    static final List<Group> GROUPS = List.of(
            new Group(
                    "update",
                    "UPDATE by primary key: HikariCP pool of 4, 2 client threads",
                    UpdateBench.class,
                    2,
                    true,
                    "ops/s",
                    List.of(
                            new Variant("a", "a_raw", "(a) raw pgjdbc"),
                            new Variant("b", "b_rawHandFenced", "(b) raw pgjdbc, hand-written fenced SQL"),
                            new Variant("c", "c_fencedProtected", "(c) fenced, protected table"),
                            new Variant("d", "d_fencedUnprotected", "(d) fenced, unprotected table"),
                            new Variant("p6spy", "e_p6spy", "p6spy (no logging), unprotected table"),
                            new Variant("dsproxy", "f_datasourceProxy", "datasource-proxy (no listener), unprotected")),
                    List.of(
                            new Comparison("c", "b", 0.97, 1.0),
                            new Comparison("d", "a", 0.99, 0.5),
                            new Comparison("b", "a", Double.NaN, Double.NaN),
                            new Comparison("c", "a", Double.NaN, Double.NaN),
                            new Comparison("p6spy", "a", Double.NaN, Double.NaN),
                            new Comparison("dsproxy", "a", Double.NaN, Double.NaN)),
                    new Plan(3, 24, 1500),
                    new Plan(1, 4, 500)),
            new Group(
                    "paired",
                    "The two UPDATE targets paired block by block (16 UPDATEs on X, then 16 on Y, order"
                            + " flipped each time, timed apart): pool of 4, 2 client threads",
                    PairedUpdateBench.class,
                    2,
                    true,
                    "ops/s",
                    List.of(
                            new Variant("cb", "cb", "(c) fenced, protected vs (b) raw, hand-written fenced SQL"),
                            new Variant("ce", "ce", "(c) fenced, protected vs (e) raw, the article's SQL by hand"),
                            new Variant("be", "be", "(b) fenced's SQL by hand vs (e) the article's SQL by hand"),
                            new Variant(
                                    "bq",
                                    "bq",
                                    "(b) fenced's SQL by hand vs the same with an unqualified > (before issue 24)"),
                            new Variant("da", "da", "(d) fenced, unprotected vs (a) raw pgjdbc"),
                            new Variant("aa", "aa", "control: (a) raw pgjdbc vs (a) itself")),
                    // a paired path compares X with Y itself: num and den both name that path
                    List.of(
                            new Comparison("cb", "cb", 0.97, 1.0),
                            new Comparison("ce", "ce", 0.97, 1.0),
                            new Comparison("be", "be", Double.NaN, Double.NaN),
                            new Comparison("bq", "bq", Double.NaN, Double.NaN),
                            new Comparison("da", "da", 0.99, 0.5),
                            new Comparison("aa", "aa", Double.NaN, Double.NaN)),
                    new Plan(2, 16, 1500),
                    new Plan(1, 3, 500)),
            new Group(
                    "overhead",
                    "The same UPDATE paths on a stub connection (no database, no pgjdbc): fenced's own work per"
                            + " statement, 1 thread",
                    OverheadBench.class,
                    1,
                    false,
                    "ns/op",
                    List.of(
                            new Variant("a", "a_stub", "(a) stub connection"),
                            new Variant("b", "b_stubHandFenced", "(b) stub, hand-written fenced SQL"),
                            new Variant("c", "c_fencedProtected", "(c) fenced over the stub, protected table"),
                            new Variant("d", "d_fencedUnprotected", "(d) fenced over the stub, unprotected table")),
                    List.of(new Comparison("c", "b", Double.NaN, 1.0), new Comparison("d", "a", Double.NaN, 0.5)),
                    new Plan(2, 12, 1000),
                    new Plan(1, 3, 300)),
            new Group(
                    "select",
                    "SELECT by key from the protected table: pool of 4, 2 client threads",
                    SelectBench.class,
                    2,
                    true,
                    "ops/s",
                    List.of(new Variant("raw", "a_raw", "raw pgjdbc"), new Variant("fenced", "b_fenced", "fenced")),
                    List.of(new Comparison("fenced", "raw", Double.NaN, Double.NaN)),
                    new Plan(2, 16, 1000),
                    new Plan(1, 3, 500)),
            new Group(
                    "batch",
                    "Batch of 100 UPDATEs by key (one op = one executeBatch): pool of 4, 2 client threads",
                    BatchBench.class,
                    2,
                    true,
                    "batches/s",
                    List.of(
                            new Variant("raw", "a_raw", "raw pgjdbc, unprotected table"),
                            new Variant("hand", "b_rawHandFenced", "raw pgjdbc, hand-written fenced SQL"),
                            new Variant("fenced", "c_fenced", "fenced, protected table")),
                    List.of(
                            new Comparison("fenced", "hand", Double.NaN, Double.NaN),
                            new Comparison("fenced", "raw", Double.NaN, Double.NaN)),
                    new Plan(2, 14, 2000),
                    new Plan(1, 3, 600)),
            new Group(
                    "rewrite",
                    "Deciding a statement (RewriteCache.plan, no database): 1 thread",
                    RewriteBench.class,
                    1,
                    false,
                    "ns/op",
                    List.of(
                            new Variant("cached", "a_cachedProtected", "protected UPDATE, plan cached"),
                            new Variant("unprotected", "b_unprotected", "unprotected UPDATE, seen before (memory)"),
                            new Variant(
                                    "scanned",
                                    "e_unprotectedScanned",
                                    "unprotected UPDATE, not in memory (pre-filter scan, ~60 chars)"),
                            new Variant(
                                    "unprotected20",
                                    "d_unprotected20Tables",
                                    "the same, 20 tables protected (pre-filter scan)"),
                            new Variant("cold", "c_coldProtected", "protected UPDATE, new text each time (cold)")),
                    List.of(),
                    new Plan(2, 10, 1000),
                    new Plan(1, 3, 400)),
            new Group(
                    "lease",
                    "Leases on plain pgjdbc (pool of 4): 1 thread",
                    LeaseBench.class,
                    1,
                    false,
                    "time/op",
                    List.of(
                            new Variant("grant", "a_grant", "tryAcquire + close (takeover of a released row), µs"),
                            new Variant("renew", "b_renew1000", "renewal statement for 1,000 held leases, ms")),
                    List.of(),
                    new Plan(2, 10, 1000),
                    new Plan(1, 3, 500)));

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        String jdbcUrl = null;
        List<String> only = null;
        Path out = defaultOutDir();
        double maxLoad = 1.5;
        int waitLoadSeconds = -1;
        int rounds = -1;
        int roundMs = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--jdbc-url" -> jdbcUrl = args[++i];
                case "--only" -> only = List.of(args[++i].split(","));
                case "--out" -> out = Path.of(args[++i]);
                case "--max-load" -> maxLoad = Double.parseDouble(args[++i]);
                case "--wait-load" -> waitLoadSeconds = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--round-ms" -> roundMs = Integer.parseInt(args[++i]);
                case "-h", "--help" -> {
                    usage(System.out);
                    return;
                }
                default -> {
                    System.err.println("bench: unknown argument " + args[i]);
                    usage(System.err);
                    System.exit(2);
                }
            }
        }
        if (waitLoadSeconds < 0) {
            waitLoadSeconds =
                    quick ? 0 : 600; // CI smoke never waits; a full run waits up to 10 min for a quiet machine
        }
        List<Group> groups = new ArrayList<>();
        for (Group g : GROUPS) {
            if (only == null || only.contains(g.id())) {
                groups.add(g);
            }
        }
        if (groups.isEmpty()) {
            System.err.println("bench: --only names none of "
                    + GROUPS.stream().map(Group::id).toList());
            System.exit(2);
        }

        long started = System.nanoTime();
        double loadAtStart = waitForQuiet(maxLoad, waitLoadSeconds);
        StringBuilder report = new StringBuilder();
        StringBuilder csv = new StringBuilder("group,round,path,score,unit,client_cpu_us_per_op,client_alloc_b_per_op,"
                + "gc_alloc_rate_norm_b_per_op,ops,parses,load1\n");
        if (jdbcUrl != null) {
            BenchEnv.useServer(jdbcUrl);
        }
        BenchEnv env = BenchEnv.get();
        report.append(String.format(
                Locale.ROOT,
                "# fenced benchmarks (%s run, %s)%n%n",
                quick ? "quick" : "full",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"))));
        report.append(String.format(
                Locale.ROOT,
                "%s; %d cores; Java %s; %s%n",
                env.serverDescription(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                "JMH 1.37 in-process (forks 0), interleaved rounds"));
        report.append(String.format(Locale.ROOT, "load average (1 min) before the run: %.2f%n", loadAtStart));
        System.out.print(report);
        System.out.flush();

        List<Double> loads = new ArrayList<>();
        for (Group g : groups) {
            Plan plan = quick ? g.quick() : g.full();
            plan = new Plan(
                    plan.warmRounds(), rounds > 0 ? rounds : plan.rounds(), roundMs > 0 ? roundMs : plan.roundMs());
            System.out.printf(
                    Locale.ROOT,
                    "%n[%s] %d paths x (%d warm-up + %d measured rounds) x %d ms ...%n",
                    g.id(),
                    g.variants().size(),
                    plan.warmRounds(),
                    plan.rounds(),
                    plan.roundMs());
            Map<String, List<Outcome>> measured = runGroup(g, plan, loads, csv);
            String section = section(g, plan, measured);
            System.out.print(section);
            System.out.flush();
            report.append(section);
        }
        Stats load = Stats.of(loads.stream().mapToDouble(Double::doubleValue).toArray());
        String footer = String.format(
                Locale.ROOT,
                "%nload average (1 min) during the rounds: median %.2f, min %.2f, max %.2f"
                        + " (this benchmark itself keeps ~2 client threads and their PostgreSQL backends busy)%n"
                        + "wall time: %s%n",
                load.median(),
                load.min(),
                load.max(),
                formatDuration(Duration.ofNanos(System.nanoTime() - started)));
        System.out.print(footer);
        report.append(footer);
        try {
            Files.createDirectories(out);
            Files.writeString(out.resolve("bench-results.md"), report.toString(), StandardCharsets.UTF_8);
            Files.writeString(out.resolve("bench-rounds.csv"), csv.toString(), StandardCharsets.UTF_8);
            System.out.println("written: " + out.resolve("bench-results.md") + ", " + out.resolve("bench-rounds.csv"));
        } catch (IOException e) {
            System.err.println("bench: could not write the results to " + out + ": " + e.getMessage());
        }
        BenchEnv.shutdown();
    }

    private static void usage(PrintStream s) {
        s.println(
                "usage: java -jar bench/target/fenced-bench.jar [--quick] [--jdbc-url jdbc:postgresql://host:port/db?user=u]");
        s.println("         [--only "
                + String.join(",", GROUPS.stream().map(Group::id).toList()) + "] [--out DIR]");
        s.println("         [--max-load 1.5] [--wait-load SECONDS (full: 600, quick: 0)] [--rounds N] [--round-ms MS]");
    }

    /** Warm-up rounds (discarded), then measured rounds, each running every path once in a rotated order. */
    private static Map<String, List<Outcome>> runGroup(Group g, Plan plan, List<Double> loads, StringBuilder csv)
            throws RunnerException {
        Map<String, List<Outcome>> measured = new LinkedHashMap<>();
        for (Variant v : g.variants()) {
            measured.put(v.key(), new ArrayList<>());
        }
        int n = g.variants().size();
        for (int round = -plan.warmRounds(); round < plan.rounds(); round++) {
            int shift = Math.floorMod(round, n);
            // rotate, and reverse every other round, so each pair runs in both orders and at every position
            List<Variant> order = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                order.add(g.variants().get((shift + i) % n));
            }
            if (Math.floorMod(round, 2) == 1) {
                java.util.Collections.reverse(order);
            }
            for (Variant v : order) {
                Outcome o = runOnce(g, v, plan.roundMs());
                if (round >= 0) {
                    measured.get(v.key()).add(o);
                    loads.add(o.load());
                    csv.append(String.format(
                            Locale.ROOT,
                            "%s,%d,%s,%.3f,%s,%.4f,%.1f,%.1f,%d,%d,%.2f%n",
                            g.id(),
                            round,
                            v.key(),
                            o.score(),
                            g.unit(),
                            o.cpuMicros(),
                            o.clientAlloc(),
                            o.gcAllocNorm(),
                            o.ops(),
                            o.parses(),
                            o.load()));
                }
            }
            System.out.print(round < 0 ? "w" : ".");
            System.out.flush();
        }
        System.out.println();
        return measured;
    }

    private static Outcome runOnce(Group g, Variant v, int ms) throws RunnerException {
        Options options = new OptionsBuilder()
                .include("^" + Pattern.quote(g.bench().getName() + "." + v.method()) + "$")
                .forks(0)
                .threads(g.threads())
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(ms))
                .addProfiler(GCProfiler.class)
                .addProfiler(ClientCpuProfiler.class)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        double load = loadAverage();
        long parsedBefore = parsed();
        Collection<RunResult> results = new Runner(options, SILENT).run();
        long parses = parsed() - parsedBefore;
        if (results.size() != 1) {
            throw new IllegalStateException("expected one JMH result for " + v.method() + ", got " + results.size());
        }
        RunResult r = results.iterator().next();
        long ops = 0;
        for (var br : r.getBenchmarkResults()) {
            for (IterationResult ir : br.getIterationResults()) {
                ops += ir.getMetadata().getAllOps();
            }
        }
        Map<String, ?> secondary = r.getSecondaryResults();
        double cpu = score(secondary, ClientCpuProfiler.CPU);
        if (!(cpu > 0)) {
            throw new IllegalStateException(
                    "no client CPU time measured for " + v.method() + ": " + secondary.keySet());
        }
        return new Outcome(
                r.getPrimaryResult().getScore(),
                cpu,
                score(secondary, ClientCpuProfiler.ALLOC),
                score(secondary, "gc.alloc.rate.norm"),
                ops,
                parses,
                load,
                secondary);
    }

    private static double score(Map<String, ?> results, String name) {
        for (Map.Entry<String, ?> e : results.entrySet()) {
            if (e.getKey().endsWith(name)) {
                return ((Result<?>) e.getValue()).getScore();
            }
        }
        return Double.NaN;
    }

    /** fenced's parse counter ({@code fenced.rewrites.parsed}): statements lexed and parsed since the JVM started. */
    static long parsed() {
        Long n = FencedStats.counters().get("fenced.rewrites.parsed");
        return n == null ? 0 : n;
    }

    // ---------------------------------------------------------------------------------------------- report

    private static String section(Group g, Plan plan, Map<String, List<Outcome>> measured) {
        if (g.paired()) {
            return pairedSection(g, plan, measured);
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%n## %s%n%d measured rounds of %d ms per path (after %d warm-up rounds);"
                        + " figures are medians over rounds, [IQR] and (min-max) of the per-round values%n%n",
                g.title(),
                plan.rounds(),
                plan.roundMs(),
                plan.warmRounds()));
        Variant base = g.variants().get(0);
        if (g.throughput()) {
            b.append("| path | ")
                    .append(g.unit())
                    .append(" | ratio to ")
                    .append(base.label().split(" ")[0])
                    .append(" (per round) | client CPU µs/op | alloc B/op | parses |\n|---|---|---|---|---|---|\n");
        } else {
            b.append("| path | ")
                    .append(g.unit())
                    .append(" | ops | client CPU µs/op | alloc B/op | parses |\n")
                    .append("|---|---|---|---|---|---|\n");
        }
        for (Variant v : g.variants()) {
            List<Outcome> os = measured.get(v.key());
            Stats score = stat(os, Outcome::score);
            Stats cpu = stat(os, Outcome::cpuMicros);
            Stats alloc = stat(os, Outcome::gcAllocNorm);
            long parses = os.stream().mapToLong(Outcome::parses).sum();
            long ops = os.stream().mapToLong(Outcome::ops).sum();
            String second;
            if (g.throughput()) {
                second = v == base ? "1.000" : ratioCell(ratios(measured, v.key(), base.key()));
            } else {
                second = String.format(Locale.ROOT, "%,d", ops);
            }
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s (%s-%s) | %s | %.2f [%.2f-%.2f] | %,.0f | %,d |%n",
                    v.label(),
                    num(score.median()),
                    num(score.min()),
                    num(score.max()),
                    second,
                    cpu.median(),
                    cpu.q1(),
                    cpu.q3(),
                    alloc.median(),
                    parses));
        }
        if (!g.comparisons().isEmpty() && !g.throughput()) {
            b.append("\n| per-round comparison | median | IQR | min-max | target | |\n|---|---|---|---|---|---|\n");
            for (Comparison c : g.comparisons()) {
                Stats delta = Stats.of(scoreDeltas(measured, c.num(), c.den()));
                double target = c.maxCpuDelta() * (g.unit().startsWith("ns") ? 1000 : 1);
                String dt = Double.isNaN(target) ? "" : String.format(Locale.ROOT, "<= %.0f %s", target, g.unit());
                String dv = Double.isNaN(target) ? "" : (delta.median() <= target ? "met" : "MISSED");
                b.append(String.format(
                        Locale.ROOT,
                        "| %s - %s %s | %+.1f | %+.1f-%+.1f | %+.1f-%+.1f | %s | %s |%n",
                        shortLabel(g, c.num()),
                        shortLabel(g, c.den()),
                        g.unit(),
                        delta.median(),
                        delta.q1(),
                        delta.q3(),
                        delta.min(),
                        delta.max(),
                        dt,
                        dv));
            }
        }
        if (!g.comparisons().isEmpty() && g.throughput()) {
            b.append("\n| per-round comparison | median | IQR | min-max | target | |\n|---|---|---|---|---|---|\n");
            for (Comparison c : g.comparisons()) {
                Stats ratio = Stats.of(ratios(measured, c.num(), c.den()));
                String rt = Double.isNaN(c.minRatio()) ? "" : String.format(Locale.ROOT, ">= %.2f", c.minRatio());
                String rv = Double.isNaN(c.minRatio()) ? "" : (ratio.median() >= c.minRatio() ? "met" : "MISSED");
                b.append(String.format(
                        Locale.ROOT,
                        "| %s / %s %s | %.3f | %.3f-%.3f | %.3f-%.3f | %s | %s |%n",
                        shortLabel(g, c.num()),
                        shortLabel(g, c.den()),
                        g.unit(),
                        ratio.median(),
                        ratio.q1(),
                        ratio.q3(),
                        ratio.min(),
                        ratio.max(),
                        rt,
                        rv));
                Stats delta = Stats.of(deltas(measured, c.num(), c.den()));
                String dt =
                        Double.isNaN(c.maxCpuDelta()) ? "" : String.format(Locale.ROOT, "<= %.1f µs", c.maxCpuDelta());
                String dv = Double.isNaN(c.maxCpuDelta()) ? "" : (delta.median() <= c.maxCpuDelta() ? "met" : "MISSED");
                b.append(String.format(
                        Locale.ROOT,
                        "| %s - %s client CPU µs/op | %+.2f | %+.2f-%+.2f | %+.2f-%+.2f | %s | %s |%n",
                        shortLabel(g, c.num()),
                        shortLabel(g, c.den()),
                        delta.median(),
                        delta.q1(),
                        delta.q3(),
                        delta.min(),
                        delta.max(),
                        dt,
                        dv));
            }
        }
        return b.toString();
    }

    /**
     * One row per pair: per round, X's throughput over Y's ({@code (opsX/wallX)/(opsY/wallY)}, the wall time of
     * X's blocks against Y's), X's CPU per op minus Y's, and each path's allocation per op.
     */
    private static String pairedSection(Group g, Plan plan, Map<String, List<Outcome>> measured) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%n## %s%n%d measured rounds of %d ms per pair (after %d warm-up rounds);"
                        + " figures are medians over rounds, [IQR] and (min-max) of the per-round values%n%n",
                g.title(),
                plan.rounds(),
                plan.roundMs(),
                plan.warmRounds()));
        b.append(
                        "| pair X vs Y | ops/s X / Y | target | | CPU µs/op X - Y | target | | alloc B/op X, Y | ops | parses |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (Comparison c : g.comparisons()) {
            List<Outcome> os = measured.get(c.num());
            double[] ratio = os.stream()
                    .mapToDouble(o -> (o.aux("xOps") / o.aux("xWallNs")) / (o.aux("yOps") / o.aux("yWallNs")))
                    .toArray();
            double[] cpu = os.stream()
                    .mapToDouble(o -> (o.aux("xCpuNs") / o.aux("xOps") - o.aux("yCpuNs") / o.aux("yOps")) / 1e3)
                    .toArray();
            Stats r = Stats.of(ratio);
            Stats d = Stats.of(cpu);
            Stats ax = stat(os, o -> o.aux("xAllocB") / o.aux("xOps"));
            Stats ay = stat(os, o -> o.aux("yAllocB") / o.aux("yOps"));
            long ops = os.stream().mapToLong(Outcome::ops).sum();
            long parses = os.stream().mapToLong(Outcome::parses).sum();
            boolean targets = !Double.isNaN(c.minRatio());
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %+.2f [%+.2f-%+.2f] (%+.2f-%+.2f) | %s | %s"
                            + " | %,.0f, %,.0f | %,d | %,d |%n",
                    g.variant(c.num()).label(),
                    ratioCell(ratio),
                    targets ? String.format(Locale.ROOT, ">= %.2f", c.minRatio()) : "",
                    targets ? (r.median() >= c.minRatio() ? "met" : "MISSED") : "",
                    d.median(),
                    d.q1(),
                    d.q3(),
                    d.min(),
                    d.max(),
                    targets ? String.format(Locale.ROOT, "<= %.1f", c.maxCpuDelta()) : "",
                    targets ? (d.median() <= c.maxCpuDelta() ? "met" : "MISSED") : "",
                    ax.median(),
                    ay.median(),
                    ops,
                    parses));
        }
        return b.toString();
    }

    private static String shortLabel(Group g, String key) {
        String label = g.variant(key).label();
        return label.startsWith("(") ? label.substring(0, label.indexOf(')') + 1) : key;
    }

    private static String ratioCell(double[] ratios) {
        Stats s = Stats.of(ratios);
        return String.format(Locale.ROOT, "%.3f [%.3f-%.3f] (%.3f-%.3f)", s.median(), s.q1(), s.q3(), s.min(), s.max());
    }

    /** Per-round throughput ratios num/den (round i of one against round i of the other). */
    private static double[] ratios(Map<String, List<Outcome>> m, String num, String den) {
        List<Outcome> a = m.get(num);
        List<Outcome> b = m.get(den);
        double[] out = new double[Math.min(a.size(), b.size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).score() / b.get(i).score();
        }
        return out;
    }

    /** Per-round score differences num-den (time per op, for average-time groups). */
    private static double[] scoreDeltas(Map<String, List<Outcome>> m, String num, String den) {
        List<Outcome> a = m.get(num);
        List<Outcome> b = m.get(den);
        double[] out = new double[Math.min(a.size(), b.size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).score() - b.get(i).score();
        }
        return out;
    }

    /** Per-round client CPU differences num-den, µs/op. */
    private static double[] deltas(Map<String, List<Outcome>> m, String num, String den) {
        List<Outcome> a = m.get(num);
        List<Outcome> b = m.get(den);
        double[] out = new double[Math.min(a.size(), b.size())];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).cpuMicros() - b.get(i).cpuMicros();
        }
        return out;
    }

    private static Stats stat(List<Outcome> os, java.util.function.ToDoubleFunction<Outcome> f) {
        return Stats.of(os.stream().mapToDouble(f).toArray());
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return v >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
    }

    // ---------------------------------------------------------------------------------------------- machine

    /** Waits (up to {@code maxWaitSeconds}) for the 1-minute load average to drop below {@code maxLoad}. */
    private static double waitForQuiet(double maxLoad, int maxWaitSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + maxWaitSeconds * 1_000_000_000L;
        double load = loadAverage();
        boolean said = false;
        while (load >= maxLoad && System.nanoTime() < deadline) {
            if (!said) {
                System.out.printf(
                        Locale.ROOT,
                        "load average %.2f >= %.2f: waiting up to %d s for a quieter machine%n",
                        load,
                        maxLoad,
                        maxWaitSeconds);
                said = true;
            }
            Thread.sleep(10_000);
            load = loadAverage();
        }
        if (load >= maxLoad) {
            System.out.printf(
                    Locale.ROOT,
                    "load average %.2f is above %.2f: measuring anyway; absolute figures will"
                            + " suffer more than the ratios%n",
                    load,
                    maxLoad);
        }
        return load;
    }

    static double loadAverage() {
        try {
            String s = Files.readString(Path.of("/proc/loadavg"));
            return Double.parseDouble(s.substring(0, s.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }
    }

    private static Path defaultOutDir() {
        try {
            Path jar = Path.of(BenchMain.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return Files.isRegularFile(jar) ? jar.getParent() : Path.of(".");
        } catch (Exception e) {
            return Path.of(".");
        }
    }

    private static String formatDuration(Duration d) {
        return String.format(Locale.ROOT, "%d min %02d s", d.toMinutes(), d.toSecondsPart());
    }
}
