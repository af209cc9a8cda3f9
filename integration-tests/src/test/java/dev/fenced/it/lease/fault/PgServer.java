package dev.fenced.it.lease.fault;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server run as a plain child process from the embedded (zonky) binaries, so that a test
 * controls what zonky does not: the server's environment (libfaketime), SIGKILL of the postmaster and
 * every backend at once (a power cut: WAL still in shared buffers is gone), restarts on the same data
 * directory, and promotion of a standby built by copying a cleanly stopped primary.
 */
public final class PgServer implements AutoCloseable {

    private final Path dataDir;
    private final int port;
    private final Map<String, String> env;
    private Process process;

    private PgServer(Path dataDir, int port, Map<String, String> env) {
        this.dataDir = dataDir;
        this.port = port;
        this.env = env;
    }

    /** The directory holding the embedded binaries, extracted by zonky on first use. */
    public static synchronized Path binaries() {
        Path base = Path.of(System.getProperty(
                "ot.epg.working-dir",
                Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg").toString()));
        Path found = find(base);
        if (found == null) {
            try (EmbeddedPostgres once = EmbeddedPostgres.builder().start()) {
                found = find(base);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (found == null) {
            throw new IllegalStateException("no embedded PostgreSQL binaries under " + base);
        }
        return found;
    }

    private static Path find(Path base) {
        if (!Files.isDirectory(base)) {
            return null;
        }
        try (Stream<Path> dirs = Files.list(base)) {
            return dirs.map(d -> d.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("postgres")))
                    .findFirst()
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** initdb into {@code dataDir} with trust auth, user postgres, plus {@code conf} in postgresql.auto.conf. */
    public static PgServer init(Path dataDir, Map<String, String> conf) throws IOException, InterruptedException {
        run(asUser(
                binaries().resolve("initdb").toString(),
                "-D",
                dataDir.toString(),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync"));
        int port = freePort();
        Map<String, String> all = new LinkedHashMap<>();
        all.put("listen_addresses", "'127.0.0.1'");
        all.put("unix_socket_directories", "''");
        all.put("fsync", "on");
        all.put("max_connections", "60");
        all.put("shared_buffers", "32MB");
        all.putAll(conf);
        appendConf(dataDir, all);
        return new PgServer(dataDir, port, Map.of());
    }

    /** A server on an existing data directory (a copy, a standby), on a new port. */
    public static PgServer existing(Path dataDir) throws IOException {
        return new PgServer(dataDir, freePort(), Map.of());
    }

    /** The same data directory and port, started with extra environment variables (LD_PRELOAD ...). */
    public PgServer withEnv(Map<String, String> extra) {
        if (process != null) {
            throw new IllegalStateException("already started");
        }
        Map<String, String> e = new LinkedHashMap<>(env);
        e.putAll(extra);
        return new PgServer(dataDir, port, e);
    }

    public static void appendConf(Path dataDir, Map<String, String> conf) throws IOException {
        StringBuilder b = new StringBuilder();
        conf.forEach((k, v) -> b.append(k).append(" = ").append(v).append('\n'));
        Files.writeString(dataDir.resolve("postgresql.auto.conf"), b, StandardOpenOption.APPEND);
    }

    /** Starts the postmaster and waits until it accepts connections (a standby too). */
    public PgServer start() throws IOException, InterruptedException, SQLException {
        ProcessBuilder pb = new ProcessBuilder(asUser(
                binaries().resolve("postgres").toString(), "-D", dataDir.toString(), "-p", Integer.toString(port)));
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(
                dataDir.resolveSibling(dataDir.getFileName() + ".log").toFile()));
        process = pb.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Connection c = DriverManager.getConnection(url("postgres"))) {
                return this;
            } catch (SQLException e) {
                if (!process.isAlive() || System.nanoTime() > end) {
                    throw new IllegalStateException("PostgreSQL in " + dataDir + " did not start: " + log(), e);
                }
                Thread.sleep(50);
            }
        }
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    public PGSimpleDataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url("postgres"));
        return ds;
    }

    public Object query(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres"));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getObject(1) : null;
        }
    }

    public void execute(String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres"));
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    /**
     * Waits (up to 30 s) until {@code sql} answers true here: replication state belongs to other processes,
     * which offer nothing to wait on but the views themselves.
     */
    public void awaitTrue(String sql) throws SQLException, InterruptedException {
        long end = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (!Boolean.TRUE.equals(query(sql))) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not true within 30 s: " + sql);
            }
            Thread.sleep(20);
        }
    }

    /** SIGKILL of the postmaster and every backend, as close to at once as a loop gets: a power cut. */
    public void killAll() throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(process.toHandle());
        process.toHandle().descendants().forEach(all::add);
        for (ProcessHandle h : all) {
            h.destroyForcibly();
        }
        process.waitFor(30, TimeUnit.SECONDS);
        for (ProcessHandle h : all) {
            h.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        }
        process = null;
    }

    /** Fast shutdown (SIGINT), waiting for the postmaster to exit: a clean shutdown checkpoint. */
    public void stop() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.toHandle();
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(process.pid()))
                    .start()
                    .waitFor();
        } catch (IOException e) {
            process.destroy();
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            killAll();
        }
        process = null;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Copies a stopped server's data directory to {@code to} (a base backup of a cleanly stopped server). */
    public void copyTo(Path to) throws IOException {
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().equals("postmaster.pid")) {
                    continue;
                }
                Path target = to.resolve(dataDir.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
    }

    /**
     * Makes a streaming standby of this (running) primary in {@code standbyDir}: a clean stop, a copy of the data
     * directory (a base backup of a stopped server), {@code standby.signal} and {@code primary_conninfo}
     * ({@code application_name=standby}, for {@code synchronous_standby_names}), then both started again. The
     * standby gets this server's environment (libfaketime) and {@code conf}; it is in recovery when this returns.
     */
    public PgServer startStandby(Path standbyDir, Map<String, String> conf)
            throws IOException, InterruptedException, SQLException {
        stop();
        copyTo(standbyDir);
        Files.createFile(standbyDir.resolve("standby.signal"));
        Map<String, String> all = new LinkedHashMap<>();
        all.put("primary_conninfo", "'host=127.0.0.1 port=" + port + " user=postgres application_name=standby'");
        all.putAll(conf);
        appendConf(standbyDir, all);
        start();
        PgServer standby = new PgServer(standbyDir, freePort(), env).start();
        if (!Boolean.TRUE.equals(standby.query("SELECT pg_is_in_recovery()"))) {
            throw new IllegalStateException("the copy in " + standbyDir + " is not a standby: " + standby.log());
        }
        return standby;
    }

    /** Promotes this standby and waits until it accepts writes. */
    public void promote() throws SQLException {
        if (!Boolean.TRUE.equals(query("SELECT pg_promote(true, 60)"))
                || !Boolean.FALSE.equals(query("SELECT pg_is_in_recovery()"))) {
            throw new IllegalStateException("the standby in " + dataDir + " did not promote: " + log());
        }
    }

    public String log() {
        try {
            String s = Files.readString(dataDir.resolveSibling(dataDir.getFileName() + ".log"));
            return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            killAll();
        }
    }

    /** Deletes a test's directory tree. */
    public static void delete(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * PostgreSQL refuses to run as root; as zonky does, a root test runs it in a user namespace of its own
     * ({@code unshare -U}: the same process, pid and files, but not uid 0 inside).
     */
    static List<String> asUser(String... command) {
        List<String> out = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            out.add("unshare");
            out.add("-U");
        }
        out.addAll(List.of(command));
        return out;
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(command + " failed: " + out);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
