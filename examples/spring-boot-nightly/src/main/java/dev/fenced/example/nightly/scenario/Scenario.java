package dev.fenced.example.nightly.scenario;

import ch.qos.logback.classic.Level;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seed's story, played by two instances of the service: the lock holder freezes past its lock, the other
 * instance takes over, and the frozen one's late write is refused. Runs the application jar twice as child JVMs
 * against one PostgreSQL, each through its own {@link Link}; freezes the holder with SIGSTOP while its first write is
 * on the wire ({@link WireHold}), resumes it with SIGCONT once the other has finished the night, and reads what
 * happened from each instance's Actuator and from the database.
 *
 * <pre>{@code
 * java -jar fenced-example-spring-boot-nightly.jar --scenario [--restaurants N] [--fenced-mode enforce|off]
 *                                                             [--jdbc-url URL] [--logs DIR]
 * }</pre>
 * Exit status 0 only if the fence held ({@link ScenarioResult#fenceHeld()}), 1 if not, 2 on bad usage.
 */
public final class Scenario {

    public static final String FLAG = "--scenario";
    static final String LOCK = "nightly-totals";

    /** What the scenario is run with. */
    public record Options(
            Path jar,
            String jdbcUrl,
            int restaurants,
            int ordersEach,
            int ordersArriving,
            Duration lockAtMostFor,
            String fencedMode,
            Path logs,
            Duration timeout) {

        /**
         * The seed's 1,000 restaurants; its 30-second lease scaled down to 3 s (one seed second = 100 ms). The
         * timeout covers the instances' start-up, which takes a minute each on a loaded two-core machine.
         */
        public static Options defaults(Path jar) {
            return new Options(jar, null, 1000, 5, 40, Duration.ofSeconds(3), "enforce", null, Duration.ofSeconds(240));
        }

        static Options parse(String[] args) {
            Options o = defaults(runningJar());
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case FLAG -> {}
                    case "--jar" -> o = o.withJar(Path.of(value(args, ++i, a)));
                    case "--jdbc-url" ->
                        o = new Options(
                                o.jar,
                                value(args, ++i, a),
                                o.restaurants,
                                o.ordersEach,
                                o.ordersArriving,
                                o.lockAtMostFor,
                                o.fencedMode,
                                o.logs,
                                o.timeout);
                    case "--restaurants" ->
                        o = new Options(
                                o.jar,
                                o.jdbcUrl,
                                positive(value(args, ++i, a), a),
                                o.ordersEach,
                                o.ordersArriving,
                                o.lockAtMostFor,
                                o.fencedMode,
                                o.logs,
                                o.timeout);
                    case "--fenced-mode" ->
                        o = new Options(
                                o.jar,
                                o.jdbcUrl,
                                o.restaurants,
                                o.ordersEach,
                                o.ordersArriving,
                                o.lockAtMostFor,
                                mode(value(args, ++i, a)),
                                o.logs,
                                o.timeout);
                    case "--logs" ->
                        o = new Options(
                                o.jar,
                                o.jdbcUrl,
                                o.restaurants,
                                o.ordersEach,
                                o.ordersArriving,
                                o.lockAtMostFor,
                                o.fencedMode,
                                Path.of(value(args, ++i, a)),
                                o.timeout);
                    default ->
                        throw new IllegalArgumentException("unknown argument " + a + "; known: " + FLAG
                                + " [--restaurants N] [--fenced-mode enforce|off] [--jdbc-url jdbc:postgresql://...]"
                                + " [--logs DIR] [--jar APP.jar]");
                }
            }
            if (o.jar == null) {
                throw new IllegalArgumentException("not run with java -jar: name the application jar with --jar");
            }
            return o;
        }

        Options withJar(Path jar) {
            return new Options(
                    jar, jdbcUrl, restaurants, ordersEach, ordersArriving, lockAtMostFor, fencedMode, logs, timeout);
        }

        private static String mode(String s) {
            if (!s.equals("enforce") && !s.equals("off")) {
                throw new IllegalArgumentException(
                        "--fenced-mode is enforce (the default) or off (the lock alone), not '" + s + "'");
            }
            return s;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }

        private static int positive(String s, String option) {
            try {
                int n = Integer.parseInt(s);
                if (n > 0) {
                    return n;
                }
            } catch (NumberFormatException ignored) {
                // below
            }
            throw new IllegalArgumentException(option + " must be a positive number, not '" + s + "'");
        }

        /** The jar this JVM was started from with {@code java -jar}, or null. */
        private static Path runningJar() {
            String cp = System.getProperty("java.class.path", "");
            return cp.endsWith(".jar") && !cp.contains(java.io.File.pathSeparator) ? Path.of(cp) : null;
        }
    }

    private Scenario() {}

    /** Runs the scenario with the command line's options; prints the story; returns the exit status. */
    @SuppressWarnings("IncorrectMainMethod") // not an entry point: NightlyTotalsApplication.main exits with it
    public static int main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("fenced example: " + e.getMessage());
            return 2;
        }
        quietLogging();
        ScenarioResult result = run(options, System.out);
        result.print(System.out);
        return result.fenceHeld() ? 0 : 1;
    }

    /** Runs the scenario; {@code out} gets its progress. */
    @SuppressWarnings("try") // Instance.close() may be interrupted while it waits; run throws that on
    public static ScenarioResult run(Options o, PrintStream out) throws Exception {
        if (!Files.isRegularFile(o.jar())) {
            throw new IllegalArgumentException("no application jar at " + o.jar());
        }
        Path logs = o.logs() != null ? Files.createDirectories(o.logs()) : Files.createTempDirectory("fenced-example");
        Random random = new Random(20261203);
        try (ScenarioDatabase db = ScenarioDatabase.start(o.jdbcUrl())) {
            db.create(o.restaurants(), o.ordersEach(), random);
            out.printf(
                    Locale.ROOT,
                    "fenced example: the nightly totals as a Spring Boot service, two instances,"
                            + " %,d restaurants, %s%n",
                    o.restaurants(),
                    db.description());
            WireHold hold = new WireHold();
            try (Link link1 = new Link("1", db.host(), db.port(), hold);
                    Link link2 = new Link("2", db.host(), db.port(), hold);
                    Instance one = Instance.start(
                            "instance-1",
                            o.jar(),
                            db.url("127.0.0.1", link1.port()),
                            o.lockAtMostFor(),
                            o.fencedMode(),
                            logs);
                    Instance two = Instance.start(
                            "instance-2",
                            o.jar(),
                            db.url("127.0.0.1", link2.port()),
                            o.lockAtMostFor(),
                            o.fencedMode(),
                            logs)) {
                out.printf(
                        Locale.ROOT,
                        "instances started: %s (pid %d, %s), %s (pid %d, %s); their logs are in %s%n",
                        one.name(),
                        one.pid(),
                        one.actuator(),
                        two.name(),
                        two.pid(),
                        two.actuator(),
                        logs);
                try {
                    return play(o, db, hold, one, two, random, out);
                } finally {
                    hold.release(); // never leave a write held while the instances stop
                }
            }
        }
    }

    private static ScenarioResult play(
            Options o, ScenarioDatabase db, WireHold hold, Instance one, Instance two, Random random, PrintStream out)
            throws Exception {
        long deadline = System.nanoTime() + o.timeout().toNanos();
        String heldOn = null;
        while (heldOn == null) {
            one.ensureAlive();
            two.ensureAlive();
            heldOn = hold.awaitHeld(200, TimeUnit.MILLISECONDS);
            checkTime(deadline, "no instance ran the job");
        }
        Instance a = heldOn.equals("1") ? one : two;
        Instance b = a == one ? two : one;
        a.freeze();
        long frozenAt = System.nanoTime();
        long[] lease = db.lease(LOCK);
        long aToken = lease[0];
        long ordersBefore = db.orders();
        out.printf(
                Locale.ROOT,
                "%s took the lock (token %d) and wrote; its write is held on the wire and %s is"
                        + " stopped (SIGSTOP)%n",
                a.name(),
                aToken,
                a.name());

        db.addOrders(o.ordersArriving(), o.restaurants(), random);
        Night night;
        while ((night = db.night()) == null) {
            b.ensureAlive();
            checkTime(deadline, b.name() + " never finished the night (its log: " + b.log() + ")");
            Thread.sleep(100);
        }
        out.printf(
                Locale.ROOT,
                "%s finished the night with token %d; resuming %s (SIGCONT) and letting its write go%n",
                night.instance(),
                night.token(),
                a.name());
        a.resume();
        long frozenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
        hold.release();

        // A's run ends either way: refused (the fence held) or completed (its late write landed)
        while (a.metric("nightly.runs", "outcome:refused") + a.metric("nightly.runs", "outcome:completed") < 1) {
            a.ensureAlive();
            checkTime(deadline, a.name() + "'s job never ended after it was resumed (its log: " + a.log() + ")");
            Thread.sleep(100);
        }
        return new ScenarioResult(
                o.fencedMode(),
                a.name(),
                b.name(),
                a.pid(),
                b.pid(),
                aToken,
                o.lockAtMostFor().toMillis(),
                lease[1] + frozenMs,
                frozenMs,
                ordersBefore,
                o.ordersArriving(),
                night,
                a.metric("fenced.writes.stale", null),
                a.metric("fenced.writes.lease_lost", null),
                a.metric("nightly.runs", "outcome:refused"),
                a.metric("nightly.runs", "outcome:completed"),
                b.metric("fenced.writes.stale", null),
                b.metric("nightly.runs", "outcome:completed"),
                db.runs(),
                db.totals(),
                db.wrongTotals(),
                db.totalsNotWrittenWith(night.token()));
    }

    /**
     * The launcher is no Spring application, so nothing configures Logback for it, whose default prints every
     * DEBUG line (the embedded server's start-up among them): warnings only. The instances log to their own files.
     */
    private static void quietLogging() {
        if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(Level.WARN);
        }
    }

    private static void checkTime(long deadline, String what) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("fenced example: timed out: " + what);
        }
    }
}
