package dev.fenced.it.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** HikariCP pools as applications configure them: only the JDBC URL changes. */
public final class Pools {

    private Pools() {
    }

    public static HikariDataSource fenced(TestDatabase db, int size, String... fencedParameters) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.fencedUrl(fencedParameters));
        config.setMaximumPoolSize(size);
        config.setPoolName("fenced-" + db.name());
        return new HikariDataSource(config);
    }
}
