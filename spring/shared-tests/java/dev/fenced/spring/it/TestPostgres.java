package dev.fenced.spring.it;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The PostgreSQL these tests use: {@code FENCED_TEST_JDBC_URL} when set (a plain {@code jdbc:postgresql:} URL with
 * credentials, on a server where it may create databases), else one embedded server per test JVM. Each test class
 * gets a fresh database, so contexts never see each other's tables or leases. (The same rules as the
 * integration tests' TestDatabase, which is not a published artifact.)
 */
public final class TestPostgres {

    private static String adminUrl;
    private static EmbeddedPostgres embedded;

    private TestPostgres() {
    }

    /** {@code jdbc:postgresql:} URL of a new, empty database. */
    public static synchronized String newDatabase() {
        String admin = adminUrl();
        String db = "fenced_spring_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(admin); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a test database on " + admin, e);
        }
        int slash = admin.indexOf('/', "jdbc:postgresql://".length());
        int q = admin.indexOf('?', slash);
        return admin.substring(0, slash + 1) + db + (q < 0 ? "" : admin.substring(q));
    }

    private static String adminUrl() {
        if (adminUrl == null) {
            String external = System.getenv("FENCED_TEST_JDBC_URL");
            if (external != null && !external.isBlank()) {
                adminUrl = external.trim();
            } else {
                try {
                    embedded = EmbeddedPostgres.builder().start();
                } catch (IOException e) {
                    throw new IllegalStateException("cannot start embedded PostgreSQL", e);
                }
                adminUrl = "jdbc:postgresql://localhost:" + embedded.getPort() + "/postgres?user=postgres";
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        embedded.close();
                    } catch (IOException ignored) {
                        // the JVM is going away
                    }
                }));
            }
        }
        return adminUrl;
    }
}
