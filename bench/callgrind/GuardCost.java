import java.sql.*;
import java.util.*;
import java.nio.file.*;

/**
 * Server-side cost per execution of UPDATE forms, counted by callgrind (instructions, not time, so a loaded
 * machine does not move it): for each form, two backends run 50 warm-up executions and then n/6 and n more
 * (a cached generic plan by then); the difference over the extra executions is the cost of one. See run.sh.
 */
public class GuardCost {
    static final long TOKEN = 1_000_000L;
    public static void main(String[] a) throws Exception {
        String url = a[0];
        int n = Integer.parseInt(a[1]);
        int rows = 1000;
        List<String[]> forms = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(a[2]))) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] p = line.split("\\|", 3);
            forms.add(new String[] {p[0].trim(), p[1].trim(), p[2].trim()});
        }
        boolean cg = a.length > 3 && a[3].equals("cg");
        for (String[] f : forms) {
            String t = "t_" + f[0];
            String sql = f[2].replace("{T}", t).replace("<nonce>", "0123456789abcdef");
            long[] ir = new long[2];
            int[] ns = {n / 6, n};
            double wall = 0;
            String generic = "";
            for (int k = 0; k < 2; k++) {
                reset(url, t, rows);
                int pid;
                try (Connection c = DriverManager.getConnection(url)) {
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                        rs.next();
                        pid = rs.getInt(1);
                    }
                    int id = 0;
                    for (int i = 0; i < 50; i++) run(c, sql, f[1], (id++ % rows) + 1);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < ns[k]; i++) run(c, sql, f[1], (id++ % rows) + 1);
                    wall = (System.nanoTime() - t0) / 1e3 / ns[k];
                    generic = "";
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT generic_plans, custom_plans FROM pg_prepared_statements")) {
                        while (rs.next()) generic += rs.getLong(1) + "g/" + rs.getLong(2) + "c ";
                    }
                }
                ir[k] = cg ? totals(pid) : 0;
                System.err.println("backend " + pid + " ran " + f[0] + " " + ns[k] + " times");
            }
            System.out.printf(Locale.ROOT, "%-10s Ir/exec %,12.0f  wall µs/exec %8.1f  %s%n", f[0], (double) (ir[1] - ir[0]) / (ns[1] - ns[0]), wall, generic);
        }
    }

    static void reset(String url, String t, int rows) throws SQLException {
        try (Connection admin = DriverManager.getConnection(url); Statement s = admin.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + t);
            s.execute("CREATE TABLE " + t + " (id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint) WITH (fillfactor = 70)");
            s.execute("INSERT INTO " + t + " SELECT g, 0, 0 FROM generate_series(1, " + rows + ") g");
            s.execute("VACUUM ANALYZE " + t);
        }
    }

    static long totals(int pid) throws Exception {
        Path f = Path.of(System.getProperty("cg.dir", "/tmp/fenced-cg"), "cg." + pid);
        for (int i = 0; i < 600 && !(Files.exists(f) && Files.readString(f).contains("totals:")); i++) Thread.sleep(100);
        for (String line : Files.readAllLines(f)) {
            if (line.startsWith("summary:") || line.startsWith("totals:")) return Long.parseLong(line.split("\\s+")[1]);
        }
        throw new IllegalStateException("no totals in " + f);
    }

    static void run(Connection c, String sql, String binds, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int k = 1;
            for (String b : binds.split(",")) {
                switch (b.trim()) {
                    case "a" -> ps.setLong(k++, id);
                    case "t" -> ps.setLong(k++, TOKEN);
                    case "n" -> ps.setNull(k++, Types.BIGINT);
                    case "i" -> ps.setInt(k++, id);
                    default -> throw new IllegalArgumentException(b);
                }
            }
            if (ps.executeUpdate() != 1) throw new IllegalStateException("no row");
        }
    }

}
