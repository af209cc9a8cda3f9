package dev.fenced.it.lease;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.it.support.TestDatabase;
import org.postgresql.ds.PGSimpleDataSource;

/** The DataSources the lease tests hand to LeaseManager: plain pgjdbc, or a HikariCP pool. */
final class DataSources {

    private DataSources() {}

    /** A new physical connection per borrow. */
    static PGSimpleDataSource simple(String jdbcUrl) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        return ds;
    }

    static PGSimpleDataSource simple(TestDatabase db) {
        return simple(db.rawUrl());
    }

    static HikariDataSource pool(String jdbcUrl, int size) {
        return pool(jdbcUrl, size, true);
    }

    /** A pool whose connections come with {@code autoCommit} as given (HikariCP resets it on every return). */
    static HikariDataSource pool(TestDatabase db, int size, boolean autoCommit) {
        return pool(db.rawUrl(), size, autoCommit);
    }

    private static HikariDataSource pool(String jdbcUrl, int size, boolean autoCommit) {
        HikariConfig c = new HikariConfig();
        c.setAutoCommit(autoCommit);
        c.setJdbcUrl(jdbcUrl);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(1);
        c.setConnectionTimeout(2000);
        c.setPoolName("lease-test-" + size);
        return new HikariDataSource(c);
    }

    static HikariDataSource pool(TestDatabase db, int size) {
        return pool(db.rawUrl(), size);
    }
}
