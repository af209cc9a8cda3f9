package dev.fenced.spring.it;

import dev.fenced.it.support.TestDatabase;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Plain PostgreSQL DataSources for contexts started by an ApplicationContextRunner (the starter fences them). */
final class TestDataSources {

    private TestDataSources() {
    }

    /** A DataSource on a new, empty test database. */
    static DataSource fresh() {
        return on(TestDatabase.create());
    }

    static DataSource on(TestDatabase db) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.rawUrl());
        return ds;
    }
}
