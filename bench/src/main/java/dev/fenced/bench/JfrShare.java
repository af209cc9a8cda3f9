package dev.fenced.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the benchmark threads' CPU goes, from a JFR recording of a run: every execution sample of a JMH
 * worker thread is charged to the innermost frame that belongs to a library (fenced, pgjdbc, HikariCP, p6spy,
 * datasource-proxy, the benchmark itself); JDK frames are charged to the library that called them. Prints the
 * shares per benchmark and fenced's own hottest methods.
 *
 * <pre>
 * java -XX:StartFlightRecording=filename=bench.jfr,settings=profile -jar bench/target/fenced-bench.jar --only update
 * java -cp bench/target/fenced-bench.jar dev.fenced.bench.JfrShare bench.jfr
 * </pre>
 *
 * JFR samples threads running Java code; time in system calls (socket reads and writes) is not in these
 * samples, so a share here is a share of the client's Java time, an upper bound on its share of client CPU.
 */
public final class JfrShare {

    private static final Map<String, String> LIBRARIES = new LinkedHashMap<>();

    static {
        LIBRARIES.put("dev.fenced.bench.", "benchmark");
        LIBRARIES.put("dev.fenced.", "fenced");
        LIBRARIES.put("org.postgresql.", "pgjdbc");
        LIBRARIES.put("com.zaxxer.hikari.", "hikari");
        LIBRARIES.put("com.p6spy.", "p6spy");
        LIBRARIES.put("net.ttddyy.", "datasource-proxy");
        LIBRARIES.put("org.openjdk.jmh.", "jmh");
        LIBRARIES.put("benchstub.", "stub");
        LIBRARIES.put("jdk.proxy", "stub");
        LIBRARIES.put("com.sun.proxy.", "stub");
    }

    private JfrShare() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: JfrShare recording.jfr [top-n]");
            System.exit(2);
        }
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 12;
        Map<String, Map<String, Integer>> byBenchmark = new TreeMap<>();
        Map<String, Map<String, Integer>> fencedMethods = new TreeMap<>();
        Map<String, Integer> totals = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            String thread = e.getThread("sampledThread") == null
                    ? ""
                    : e.getThread("sampledThread").getJavaName();
            int worker = thread == null ? -1 : thread.indexOf("-jmh-worker-");
            RecordedStackTrace stack = e.getStackTrace();
            if (worker < 0 || stack == null) {
                continue;
            }
            String benchmark = thread.substring(0, worker).replace("dev.fenced.bench.", "");
            List<RecordedFrame> frames = stack.getFrames();
            String library = "jdk/other";
            String method = null;
            for (RecordedFrame f : frames) { // innermost first
                String type = f.getMethod().getType().getName();
                String lib = libraryOf(type);
                if (lib != null) {
                    library = lib;
                    method = type.substring(type.lastIndexOf('.') + 1) + "."
                            + f.getMethod().getName();
                    break;
                }
            }
            byBenchmark.computeIfAbsent(benchmark, k -> new TreeMap<>()).merge(library, 1, Integer::sum);
            totals.merge(benchmark, 1, Integer::sum);
            if (library.equals("fenced")) {
                fencedMethods.computeIfAbsent(benchmark, k -> new HashMap<>()).merge(method, 1, Integer::sum);
            }
        }
        for (Map.Entry<String, Map<String, Integer>> b : byBenchmark.entrySet()) {
            int n = totals.get(b.getKey());
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-40s %6d samples:", b.getKey(), n));
            b.getValue().entrySet().stream()
                    .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .forEach(l -> line.append(
                            String.format(Locale.ROOT, "  %s %.1f%%", l.getKey(), 100.0 * l.getValue() / n)));
            System.out.println(line);
            Map<String, Integer> methods = fencedMethods.get(b.getKey());
            if (methods != null) {
                methods.entrySet().stream()
                        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                        .limit(top)
                        .forEach(m -> System.out.printf(
                                Locale.ROOT, "      %5.2f%%  %s%n", 100.0 * m.getValue() / n, m.getKey()));
            }
        }
    }

    private static String libraryOf(String type) {
        for (Map.Entry<String, String> e : LIBRARIES.entrySet()) {
            if (type.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }
}
