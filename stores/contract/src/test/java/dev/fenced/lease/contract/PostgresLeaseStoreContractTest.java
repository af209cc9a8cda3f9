package dev.fenced.lease.contract;

import dev.fenced.it.support.TestDatabase;
import dev.fenced.spi.LeaseStore;
import dev.fenced.spi.PostgresLeaseStore;
import org.postgresql.ds.PGSimpleDataSource;

/** The default store passes the contract, on a real PostgreSQL (embedded unless FENCED_TEST_JDBC_URL says). */
class PostgresLeaseStoreContractTest extends LeaseStoreContract {

    private static TestDatabase db;

    static synchronized PGSimpleDataSource dataSource() {
        if (db == null) {
            db = TestDatabase.create();
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(db.rawUrl());
        return ds;
    }

    @Override
    protected LeaseStore createStore() {
        return PostgresLeaseStore.create(dataSource());
    }
}
