package dev.fenced.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every option of the demo, with its default. Times are given in seconds of the article <i>Lease vs lock vs
 * fencing token</i> and run on a scaled clock ({@code --article-second}), so its 30 s lease renewed every 10 s
 * becomes 600 ms / 200 ms here.
 */
final class Options {

    enum Mode {
        /** A lease renewed every ttl/3; the driver in off mode: the lease alone protects the data. */
        LEASE("lease", true, false),
        /** The same lease plus the fencing token, driver in enforce mode. */
        FENCED("fenced", true, true),
        /** A lease nobody renews: slow runs outlive it too (the article's 1% of runs over 30 s). */
        LEASE_NO_RENEW("lease-no-renew", false, false);

        final String key;
        final boolean renew;
        final boolean fenced;

        Mode(String key, boolean renew, boolean fenced) {
            this.key = key;
            this.renew = renew;
            this.fenced = fenced;
        }

        static Mode parse(String s) {
            for (Mode m : values()) {
                if (m.key.equals(s.trim().toLowerCase(Locale.ROOT))) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown mode '" + s + "' (lease, fenced, lease-no-renew)");
        }
    }

    private static final Map<String, String[]> HELP = new LinkedHashMap<>();

    /** Old names still accepted, so scripts written for them keep working; not listed in --help. */
    private static final Map<String, String> ALIASES = Map.of("--seed-second", "--article-second");

    static {
        help("--restaurants", "1000", "restaurants, one nightly run each");
        help("--workers", "24", "workers competing for the runs (each run is started on two of them at once)");
        help("--processes", "0", "spread the workers over this many separate JVMs (pauses are then SIGSTOP)");
        help("--modes", "lease,fenced", "modes side by side: lease, fenced, lease-no-renew");
        help(
                "--article-second",
                "20ms",
                "how long one second of the article's times lasts here (the night runs on this scaled clock;"
                        + " --seed-second is an old name for it)");
        help("--lease", "30", "lease length, in the article's seconds");
        help("--renew", "10", "renewal interval, in the article's seconds (its advice: lease / 3)");
        help("--run", "20", "longest normal run, in the article's seconds (runs take 2 to this)");
        help("--slow-rate", "0.01", "share of slow runs (the article: 1 in 100)");
        help("--slow-run", "90", "length of a slow run, in the article's seconds");
        help("--pause-rate", "0.02", "share of runs whose holder freezes between its last check and its write");
        help("--pause", "45", "length of a freeze, in the article's seconds (45 s against a 30 s lease)");
        help("--orders-per-second", "2000", "orders arriving while the job runs (real seconds)");
        help(
                "--databases",
                "1",
                "databases the job writes: 2 adds a ledger database that keeps a copy of every total, both fenced by"
                        + " one lease (its tokens of domain '" + ModeRun.SHARED_DOMAIN + "')");
        help(
                "--random-seed",
                "42",
                "seed of the random numbers that decide which runs are slow and which holders freeze;"
                        + " every mode sees the same night");
        help(
                "--jdbc-url",
                "(embedded)",
                "a plain jdbc:postgresql: URL of a server to use instead of the embedded one;"
                        + " the demo creates a database per mode there");
        help(
                "--report",
                "(next to the jar)",
                "directory for the pictures: one SVG per mode and report.html, which a browser opens;"
                        + " 'none' draws nothing (default: demo-report beside the jar, or in the working directory)");
        help("--timeline", "(none)", "also write the first picture (the fenced mode's) to this SVG file");
        help("--quick", "", "a short run for CI: 120 restaurants, 8 workers, more pauses");
        help("--help", "", "this text");
    }

    private static void help(String name, String def, String text) {
        HELP.put(name, new String[] {def, text});
    }

    int restaurants = 1000;
    int workers = 24;
    int processes = 0;
    List<Mode> modes = List.of(Mode.LEASE, Mode.FENCED);
    Duration articleSecond = Duration.ofMillis(20);
    double lease = 30;
    double renew = 10;
    double run = 20;
    double slowRate = 0.01;
    double slowRun = 90;
    double pauseRate = 0.02;
    double pause = 45;
    int ordersPerSecond = 2000;
    long randomSeed = 42;
    int databases = 1;
    String jdbcUrl;
    String timeline;
    /** Where the pictures go; null for the default place, {@link #NO_REPORT} for none. */
    String report;

    boolean help;

    static final String NO_REPORT = "none";

    static Options parse(String... args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            name = ALIASES.getOrDefault(name, name);
            if (!HELP.containsKey(name)) {
                throw new IllegalArgumentException("unknown option " + name + "; see --help");
            }
            if (name.equals("--help")) {
                o.help = true;
                continue;
            }
            if (name.equals("--quick")) {
                o.restaurants = 120;
                o.workers = 8;
                o.pauseRate = 0.08;
                o.ordersPerSecond = 200;
                continue;
            }
            String v;
            if (a.contains("=")) {
                v = a.substring(a.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                v = args[++i];
            } else {
                throw new IllegalArgumentException(name + " needs a value; see --help");
            }
            try {
                o.set(name, v);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(name + " " + v + ": " + e.getMessage(), e);
            }
        }
        o.check();
        return o;
    }

    private void set(String name, String v) {
        switch (name) {
            case "--restaurants" -> restaurants = Integer.parseInt(v);
            case "--workers" -> workers = Integer.parseInt(v);
            case "--processes" -> processes = Integer.parseInt(v);
            case "--modes" -> {
                List<Mode> m = new ArrayList<>();
                for (String s : v.split(",")) {
                    m.add(Mode.parse(s));
                }
                modes = List.copyOf(m);
            }
            case "--article-second" -> articleSecond = millis(v);
            case "--lease" -> lease = Double.parseDouble(v);
            case "--renew" -> renew = Double.parseDouble(v);
            case "--run" -> run = Double.parseDouble(v);
            case "--slow-rate" -> slowRate = Double.parseDouble(v);
            case "--slow-run" -> slowRun = Double.parseDouble(v);
            case "--pause-rate" -> pauseRate = Double.parseDouble(v);
            case "--pause" -> pause = Double.parseDouble(v);
            case "--orders-per-second" -> ordersPerSecond = Integer.parseInt(v);
            case "--random-seed" -> randomSeed = Long.parseLong(v);
            case "--databases" -> databases = Integer.parseInt(v);
            case "--jdbc-url" -> jdbcUrl = v;
            case "--timeline" -> timeline = v;
            case "--report" -> report = v;
            default -> throw new IllegalArgumentException("unknown option");
        }
    }

    private void check() {
        if (restaurants < 1 || workers < 2 || processes < 0 || (processes > 0 && processes > workers)) {
            throw new IllegalArgumentException(
                    "need --restaurants >= 1, --workers >= 2, 0 <= --processes <= --workers");
        }
        if (databases < 1 || databases > 2) {
            throw new IllegalArgumentException("--databases is 1 or 2");
        }
        if (renew >= lease || lease <= 0 || renew <= 0) {
            throw new IllegalArgumentException("--renew must be shorter than --lease");
        }
        if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--jdbc-url takes a plain jdbc:postgresql: URL");
        }
    }

    /** "20ms" or "20": a positive number of milliseconds. */
    private static Duration millis(String v) {
        long ms = Long.parseLong(v.trim().replaceFirst("ms$", "").trim());
        if (ms < 1) {
            throw new IllegalArgumentException("must be at least 1 ms");
        }
        return Duration.ofMillis(ms);
    }

    /** The article's seconds on the scaled clock. */
    Duration scaled(double articleSeconds) {
        return Duration.ofNanos((long) (articleSeconds * articleSecond.toNanos()));
    }

    static String helpText() {
        StringBuilder b = new StringBuilder("fenced demo: the nightly totals job of the article 'Lease vs lock vs"
                + " fencing token', with a lease alone and with a lease plus fenced.\n\n"
                + "usage: java -jar demo/target/fenced-demo.jar [options]\n\n");
        HELP.forEach((name, d) -> b.append(String.format(
                "  %-22s %s%s%n",
                name + (d[0].isEmpty() ? "" : " X"), d[1], d[0].isEmpty() ? "" : " (default " + d[0] + ")")));
        b.append(
                "\nExit status: 0 when every fenced mode ends with no damaged total, 1 otherwise, 2 for bad options.\n");
        return b.toString();
    }

    /** The options a worker process needs, as arguments. */
    List<String> workerArgs() {
        return List.of(
                "--article-second=" + articleSecond.toMillis() + "ms",
                "--lease=" + lease,
                "--renew=" + renew,
                "--run=" + run,
                "--slow-rate=" + slowRate,
                "--slow-run=" + slowRun,
                "--pause-rate=" + pauseRate,
                "--pause=" + pause,
                "--random-seed=" + randomSeed,
                "--databases=" + databases);
    }
}
