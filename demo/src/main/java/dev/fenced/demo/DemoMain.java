package dev.fenced.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The main job: the seed's nightly totals, run by competing workers whose holders really freeze past
 * their lease, once with a lease alone and once with a lease plus fenced, side by side.
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
                System.out.printf(
                        "fenced demo: %d restaurants, %d workers%s, lease %s s renewed every %s s,"
                                + " %.0f%% of runs freeze for %s s, 1 seed second = %d ms, on %s%n",
                        options.restaurants,
                        options.workers,
                        options.processes > 0 ? " in " + options.processes + " JVMs" : "",
                        trim(options.lease),
                        trim(options.renew),
                        options.pauseRate * 100,
                        trim(options.pause),
                        options.seedSecond.toMillis(),
                        server.description());
            }
            Progress progress =
                    new Progress(print ? System.err : new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
            for (Options.Mode mode : options.modes) {
                results.add(new ModeRun(server, options, mode, progress).run());
            }
        }
        if (print) {
            Report.print(results, System.out);
            if (options.timeline != null) {
                String svg = results.stream()
                        .filter(r -> r.mode.fenced && r.timelineSvg != null)
                        .map(r -> r.timelineSvg)
                        .findFirst()
                        .orElse(results.stream()
                                .map(r -> r.timelineSvg)
                                .filter(s -> s != null)
                                .findFirst()
                                .orElse(null));
                if (svg == null) {
                    System.out.println("timeline: no freeze met a newer holder's write this time; nothing to draw");
                } else {
                    writeTimeline(options.timeline, svg);
                    System.out.println("timeline: " + Path.of(options.timeline).toAbsolutePath());
                }
            }
        }
        return results;
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
