package dev.fenced.demo;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The PostgreSQL the demo runs on: embedded (started and stopped here) or the server named by --jdbc-url. */
final class DemoServer implements AutoCloseable {

    private final EmbeddedPostgres embedded;
    private final String adminUrl;
    private int databases;

    private DemoServer(EmbeddedPostgres embedded, String adminUrl) {
        this.embedded = embedded;
        this.adminUrl = adminUrl;
    }

    static DemoServer start(String jdbcUrl) throws IOException {
        if (jdbcUrl != null) {
            return new DemoServer(null, jdbcUrl);
        }
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "300")
                .start();
        return new DemoServer(pg, "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres?user=postgres");
    }

    String description() {
        return embedded != null
                ? "embedded PostgreSQL on port " + embedded.getPort()
                : adminUrl.replaceAll("password=[^&]*", "password=***");
    }

    /** A new database for one mode's run; returns its plain jdbc:postgresql: URL. */
    String newDatabase(String label) throws SQLException {
        String name = "fenced_demo_" + label.replace('-', '_') + "_"
                + ProcessHandle.current().pid() + "_" + (++databases);
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        }
        int slash = adminUrl.indexOf('/', "jdbc:postgresql://".length());
        int q = adminUrl.indexOf('?', slash);
        return adminUrl.substring(0, slash + 1) + name + (q < 0 ? "" : adminUrl.substring(q));
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
