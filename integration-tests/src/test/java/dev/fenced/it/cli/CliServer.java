package dev.fenced.it.cli;

import dev.fenced.it.support.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * The server the command-line tests talk to. Embedded by default, started with what {@code audit} reads:
 * {@code shared_preload_libraries = pg_stat_statements} (the zonky binaries ship the extension) and
 * {@code log_statement = mod} into log files of our own (the logging collector, in the stderr, csvlog and
 * jsonlog formats: postgresql.log, .csv, .json). With
 * {@code FENCED_TEST_JDBC_URL} set, that server is used; tests that need the extension or the log skip there
 * unless it has them.
 */
final class CliServer {

    private static String adminUrl;
    private static Path logDir;
    private static boolean pgStatStatements;

    private CliServer() {}

    static synchronized String adminUrl() {
        if (adminUrl == null) {
            String external = System.getenv(TestDatabase.ENV);
            try {
                if (external != null && !external.isBlank()) {
                    adminUrl = external.trim();
                } else {
                    logDir = Files.createTempDirectory("fenced-cli-pglog");
                    EmbeddedPostgres pg = EmbeddedPostgres.builder()
                            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
                            .setServerConfig("log_statement", "mod")
                            .setServerConfig("logging_collector", "on")
                            .setServerConfig("log_destination", "stderr,csvlog,jsonlog")
                            .setServerConfig("log_directory", logDir.toString())
                            .setServerConfig("log_filename", "postgresql.log")
                            .start();
                    adminUrl = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres?user=postgres";
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            pg.close();
                        } catch (IOException ignored) {
                            // the JVM is going away
                        }
                    }));
                }
                try (Connection c = DriverManager.getConnection(adminUrl);
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SHOW shared_preload_libraries")) {
                    rs.next();
                    pgStatStatements = rs.getString(1).contains("pg_stat_statements");
                }
            } catch (IOException | SQLException e) {
                throw new IllegalStateException("cannot start or reach the PostgreSQL server for the CLI tests", e);
            }
        }
        return adminUrl;
    }

    /** True when the server preloads pg_stat_statements. */
    static boolean hasPgStatStatements() {
        adminUrl();
        return pgStatStatements;
    }

    /** The statement log the embedded server writes, or null on an external server. */
    static Path log() {
        return log("log");
    }

    /** The log in one format, by the logging collector's extension: log (stderr), csv (csvlog), json (jsonlog). */
    static Path log(String extension) {
        adminUrl();
        return logDir == null ? null : logDir.resolve("postgresql." + extension);
    }

    /** A fresh database; returns its plain jdbc:postgresql: URL. */
    static String createDatabase() {
        String db = "fenced_cli_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        execute(adminUrl(), "CREATE DATABASE " + db);
        return withDatabase(adminUrl(), db);
    }

    static String withDatabase(String url, String db) {
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int q = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + db + (q < 0 ? "" : url.substring(q));
    }

    static void execute(String url, String... sql) {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
