package dev.fenced.it.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** HikariCP pools as applications configure them: only the JDBC URL changes. */
public final class Pools {

    private Pools() {}

    public static HikariDataSource fenced(TestDatabase db, int size, String... fencedParameters) {
        return pool(db.fencedUrl(fencedParameters), size, "fenced-" + db.name());
    }

    /** A pool on {@code jdbcUrl} as given, for a child JVM that only has the URL. */
    public static HikariDataSource pool(String jdbcUrl, int size, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }
}
