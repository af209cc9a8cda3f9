package dev.fenced.it.lease;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the lease tests share: a fresh database of their own, a pool on it (8 connections: the largest any
 * of them needs), and a thread left with no binding after each test, whatever a failed one left behind (both
 * from {@link FencedTestExtension}).
 */
@ExtendWith(FencedTestExtension.class)
abstract class LeaseDatabase {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void openDatabase(TestDatabase database) {
        db = database;
        pool = DataSources.pool(db, 8);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }
}
