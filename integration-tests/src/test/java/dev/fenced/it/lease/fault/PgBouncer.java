package dev.fenced.it.lease.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PgBouncer (the Debian package's binary) in transaction pooling mode in front of one server, run by the test
 * as a child process on a free loopback port with a generated ini. Two pooled databases reach the same
 * PostgreSQL database: {@code postgres} (the lease store, the server's default commit setting) and
 * {@link #DATA} (the data, committed synchronously: PgBouncer drops the {@code options} startup parameter, so
 * {@code connect_query} sets it on each server connection instead).
 */
public final class PgBouncer implements AutoCloseable {

    /** The pooled database name the holders write their data through. */
    public static final String DATA = "fenceddata";
    /** Server connections per pool (per database and user). */
    public static final int POOL_SIZE = 8;

    private final int port;
    private final Path dir;
    private final Process process;

    private PgBouncer(int port, Path dir, Process process) {
        this.port = port;
        this.dir = dir;
        this.process = process;
    }

    /** The installed binary, if any ({@code apt-get install pgbouncer}). */
    public static Optional<Path> binary() {
        for (String p : List.of("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer")) {
            if (Files.isExecutable(Path.of(p))) {
                return Optional.of(Path.of(p));
            }
        }
        return Optional.empty();
    }

    public static PgBouncer start(Path dir, int serverPort) throws IOException, InterruptedException {
        Path bin = binary().orElseThrow(() -> new IllegalStateException("pgbouncer is not installed"));
        Files.createDirectories(dir);
        int port = PgServer.freePort();
        Files.writeString(dir.resolve("userlist.txt"), "\"postgres\" \"\"\n");
        String server = "host=127.0.0.1 port=" + serverPort + " dbname=postgres";
        Files.writeString(
                dir.resolve("pgbouncer.ini"),
                String.join(
                        "\n",
                        "[databases]",
                        "postgres = " + server,
                        DATA + " = " + server + " connect_query='SET synchronous_commit = on'",
                        "[pgbouncer]",
                        "listen_addr = 127.0.0.1",
                        "listen_port = " + port,
                        "unix_socket_dir =",
                        "auth_type = trust",
                        "auth_file = " + dir.resolve("userlist.txt"),
                        "pool_mode = transaction",
                        "default_pool_size = " + POOL_SIZE,
                        "max_client_conn = 300",
                        // pgjdbc sends these at startup; PgBouncer would refuse the connection otherwise
                        "ignore_startup_parameters = extra_float_digits,options",
                        "server_login_retry = 1",
                        "query_wait_timeout = 10",
                        "logfile = " + dir.resolve("pgbouncer.log"),
                        "pidfile = " + dir.resolve("pgbouncer.pid"),
                        ""));
        // PgBouncer refuses to run as root: like the server, it runs in a user namespace of its own.
        Process p = new ProcessBuilder(PgServer.asUser(
                        bin.toString(), dir.resolve("pgbouncer.ini").toString()))
                .redirectErrorStream(true)
                .redirectOutput(
                        ProcessBuilder.Redirect.appendTo(dir.resolve("stdout").toFile()))
                .start();
        PgBouncer b = new PgBouncer(port, dir, p);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = DriverManager.getConnection(b.url(DATA))) {
                c.createStatement().execute("SELECT 1");
                return b;
            } catch (SQLException e) {
                if (!p.isAlive() || System.nanoTime() > end) {
                    b.close();
                    throw new IllegalStateException("pgbouncer did not start: " + b.log(), e);
                }
                Thread.sleep(50);
            }
        }
    }

    public int port() {
        return port;
    }

    /** A direct URL (not through any proxy) for a pooled database. */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres&prepareThreshold=0";
    }

    public String log() {
        try {
            String s = Files.readString(dir.resolve("pgbouncer.log")) + Files.readString(dir.resolve("stdout"));
            return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
