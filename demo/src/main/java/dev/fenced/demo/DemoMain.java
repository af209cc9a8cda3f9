package dev.fenced.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The main job: the nightly totals of the article <i>Lease vs lock vs fencing token</i>, run by competing
 * workers whose holders really freeze past their lease, once with a lease alone and once with a lease plus
 * fenced, side by side.
 */
public final class DemoMain {

    /**
     * fenced logs each lost lease at WARNING; here losing leases is the point, and the report counts them.
     * Held in a field: java.util.logging only keeps weak references to its loggers.
     */
    private static final java.util.logging.Logger FENCED_LOG = java.util.logging.Logger.getLogger("dev.fenced");

    private DemoMain() {}

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("fenced demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.print(Options.helpText());
            return;
        }
        System.exit(run(options) ? 0 : 1);
    }

    /** Runs the demo with these command-line options, printing nothing; the figures of each mode. */
    public static List<ModeFigures> figures(String... args) throws Exception {
        return run(Options.parse(args), false).stream().map(ModeFigures::of).toList();
    }

    /** Runs every mode; true when the fenced modes did no damage. */
    static boolean run(Options options) throws Exception {
        List<ModeResult> results = run(options, true);
        return Report.fencedClean(results);
    }

    static List<ModeResult> run(Options options, boolean print) throws Exception {
        FENCED_LOG.setLevel(java.util.logging.Level.SEVERE);
        List<ModeResult> results = new ArrayList<>();
        try (DemoServer server = DemoServer.start(options.jdbcUrl)) {
            if (print) {
                introduction(options).forEach(System.out::println);
                System.out.printf(
                        "(%s; one second of the article's times lasts %d ms here)%n",
                        server.description(), options.articleSecond.toMillis());
            }
            Progress progress = print
                    ? Progress.forStandardError()
                    : new Progress(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), false);
            for (Options.Mode mode : options.modes) {
                results.add(new ModeRun(server, options, mode, progress).run());
            }
        }
        if (print) {
            Report.print(results, System.out);
            System.out.println();
            TOKENS.forEach(System.out::println);
            for (ModeResult r : results) {
                System.out.println();
                if (r.incident == null) {
                    System.out.println(Report.heading(r) + ": no frozen holder met a newer holder's write this night.");
                    continue;
                }
                System.out.println("One restaurant, " + Report.heading(r) + ": " + r.incident.headline());
                r.incident.story(options).forEach(line -> System.out.println("  " + line));
            }
            System.out.println();
            System.out.println(Report.sentence(results));
            writePictures(options, results);
        }
        return results;
    }

    /** Five lines in plain words: what the job is, what goes wrong, what the two runs compare. */
    static List<String> introduction(Options o) {
        String freeze = String.format(java.util.Locale.ROOT, "%.0f%%", o.pauseRate * 100);
        return List.of(
                "The nightly job of the article 'Lease vs lock vs fencing token': " + o.workers + " workers"
                        + (o.processes > 0 ? " in " + o.processes + " JVMs" : "") + " recompute the totals of "
                        + o.restaurants + " restaurants from their orders"
                        + (o.databases > 1
                                ? " and copy each into a ledger in a second database (one lease fences both: its tokens"
                                        + " are of domain '" + ModeRun.SHARED_DOMAIN + "', which both databases' tables"
                                        + " take)."
                                : "."),
                "A lease of " + trim(o.lease) + " s, renewed every " + trim(o.renew)
                        + " s, decides which worker runs a restaurant, so that two never run the same one.",
                "But " + freeze + " of the holders freeze for " + trim(o.pause)
                        + " s just after checking their lease (a GC pause, a stalled network): the lease runs out,",
                "a second worker takes it over and writes the new total; then the first one wakes up and writes its"
                        + " old total.",
                "The same night runs twice: with the lease alone, then with fenced, whose database refuses the late"
                        + " write.");
    }

    /** Why the tokens are the numbers they are; printed once. */
    static final List<String> TOKENS = List.of(
            "Tokens: each grant of a lease gets a number; a higher number is a newer holder, only the order matters.",
            "They have 13 digits because fenced puts the server's WAL timeline above a counter (timeline x 2^43 +"
                    + " count),",
            "so a promoted standby always grants higher numbers than its old primary. The lease alone hands them out"
                    + " too,",
            "but only fenced makes the database check them.");

    private static void writePictures(Options options, List<ModeResult> results) throws IOException {
        if (options.timeline != null) {
            Incident incident = results.stream()
                    .filter(r -> r.incident != null)
                    .sorted(java.util.Comparator.comparing((ModeResult r) -> !r.mode.fenced))
                    .map(r -> r.incident)
                    .findFirst()
                    .orElse(null);
            if (incident != null) {
                writeTimeline(options.timeline, Timeline.render(incident, options));
                System.out.println("timeline: " + Path.of(options.timeline).toAbsolutePath());
            }
        }
        if (!Options.NO_REPORT.equals(options.report)) {
            Path dir = options.report != null ? Path.of(options.report) : HtmlReport.defaultDirectory();
            Path html = HtmlReport.write(dir, results, options);
            System.out.println("The pictures: " + html.toAbsolutePath().toUri() + " (open it in a browser; the SVGs"
                    + " are beside it)");
        }
    }

    private static void writeTimeline(String file, String svg) throws IOException {
        Path p = Path.of(file);
        if (p.getParent() != null) {
            Files.createDirectories(p.getParent());
        }
        Files.writeString(p, svg);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
