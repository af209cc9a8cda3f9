package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.StaleTokenException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Pools;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.core.simple.SimpleJdbcInsert;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring JDBC 6.2 ({@code spring-jdbc} of Spring Boot 3.5.7) over a fenced HikariCP pool: JdbcTemplate,
 * NamedParameterJdbcTemplate, batchUpdate, SimpleJdbcInsert with generated keys, and a
 * TransactionTemplate transaction (what {@code @Transactional} runs) that meets a stale row.
 */
class SpringJdbcIT extends ClientContract {

    HikariDataSource pool;
    /** Configured as docs/clients.md recommends: fenced's exceptions translated to concurrency failures. */
    JdbcTemplate jdbc;
    /** Spring's defaults, untouched: what an application gets before adding the translator. */
    JdbcTemplate plain;

    NamedParameterJdbcTemplate named;
    TransactionTemplate tx;

    @Override
    protected String[] schema() {
        return new String[] {
            TOTALS,
            "ALTER TABLE totals ADD COLUMN note text",
            "CREATE TABLE orders (id serial PRIMARY KEY, restaurant_id int NOT NULL, amount bigint,"
                    + " last_token bigint)"
        };
    }

    @Override
    protected void open() {
        pool = Pools.fenced(db, 2, "fenced.tables=totals,orders");
        jdbc = new JdbcTemplate(pool);
        jdbc.setExceptionTranslator(new FencedExceptionTranslator());
        plain = new JdbcTemplate(pool);
        named = new NamedParameterJdbcTemplate(jdbc);
        tx = new TransactionTemplate(new DataSourceTransactionManager(pool));
    }

    @Override
    protected void close() {
        pool.close();
    }

    @Override
    protected int update(int id, long amount) {
        return jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", amount, id);
    }

    @Override
    protected void insert(int id, long amount) {
        new SimpleJdbcInsert(jdbc)
                .withTableName("totals")
                .usingColumns("restaurant_id", "amount")
                .execute(Map.of("restaurant_id", id, "amount", amount));
    }

    @Override
    protected void upsert(int id, long amount) {
        named.update(
                "INSERT INTO totals (restaurant_id, amount) VALUES (:id, :amount)"
                        + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount",
                new MapSqlParameterSource("id", id).addValue("amount", amount));
    }

    @Override
    protected int delete(int id) {
        return named.update("DELETE FROM totals WHERE restaurant_id = :id", Map.of("id", id));
    }

    @Test
    void byDefaultSpringCallsAStaleWriteUncategorized() throws Throwable {
        as(12, () -> update(1, 1));
        StaleTokenException stale =
                refusedAsStale(11, () -> plain.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", 2, 1));
        // SQLExceptionSubclassTranslator knows no SQLState class FN: the generic fallback.
        UncategorizedSQLException e = assertThrows(
                UncategorizedSQLException.class,
                () -> as(11, () -> plain.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", 2, 1)));
        assertInstanceOf(StaleTokenException.class, e.getSQLException());
        assertEquals("FN001", e.getSQLException().getSQLState());
        assertEquals(stale.getMessage(), e.getSQLException().getMessage());
    }

    @Test
    void withTheTranslatorAStaleWriteIsAnOptimisticLockingFailure() throws Throwable {
        as(12, () -> update(1, 1));
        OptimisticLockingFailureException e =
                assertThrows(OptimisticLockingFailureException.class, () -> as(11, () -> update(1, 2)));
        StaleTokenException stale = assertInstanceOf(StaleTokenException.class, e.getCause());
        assertEquals(12, stale.rowToken());
        assertTrue(e.getMessage().contains("stale write refused on table totals"), e.getMessage());
        assertEquals(12, Rows.token(db, 1));
    }

    @Test
    void withTheTranslatorAWriteWithoutATokenIsAnApiUsageError() {
        InvalidDataAccessApiUsageException e =
                assertThrows(InvalidDataAccessApiUsageException.class, () -> update(1, 2));
        assertInstanceOf(UnfencedWriteException.class, e.getCause());
        assertEquals("1:10:5,2:20:5,3:30:9", Rows.totals(db));
    }

    @Test
    void aNullArgumentTakesSpringsParameterMetadataPath() throws Throwable {
        // For a null value Spring asks getParameterMetaData() for the type: it must see the user's two ?s.
        as(9, () -> assertEquals(1, jdbc.update("UPDATE totals SET note = ? WHERE restaurant_id = ?", null, 1)));
        as(
                9,
                () -> assertEquals(
                        1,
                        jdbc.update("UPDATE totals SET amount = ?, note = ? WHERE restaurant_id = ?", 11L, null, 1)));
        assertEquals(
                "1:11:null:9",
                Rows.snapshot(
                        db, "SELECT restaurant_id, amount, note, last_token FROM totals WHERE restaurant_id = 1"));
    }

    @Test
    void batchUpdateCarriesTheTokenOnEveryRow() throws Throwable {
        as(9, () -> {
            int[] counts = jdbc.batchUpdate(
                    "UPDATE totals SET amount = ? WHERE restaurant_id = ?",
                    List.of(new Object[] {101, 1}, new Object[] {102, 2}, new Object[] {103, 3}));
            assertArrayEquals(new int[] {1, 1, 1}, counts);
        });
        assertEquals("1:101:9,2:102:9,3:103:9", Rows.totals(db));
    }

    @Test
    void aStaleRowAnywhereInABatchFailsTheWholeBatchEvenInAutoCommit() {
        // Rows 1 and 2 would accept token 8; row 3 holds 9. pgjdbc sends the batch as one implicit transaction.
        refusedAsStale(
                8,
                () -> jdbc.batchUpdate(
                        "UPDATE totals SET amount = ? WHERE restaurant_id = ?",
                        List.of(new Object[] {101, 1}, new Object[] {102, 2}, new Object[] {103, 3})));
        assertInstanceOf(
                OptimisticLockingFailureException.class,
                assertThrows(
                        DataAccessException.class,
                        () -> as(
                                8,
                                () -> jdbc.batchUpdate(
                                        "DELETE FROM totals WHERE restaurant_id = ?",
                                        List.of(new Object[] {1}, new Object[] {3})))));
    }

    @Test
    void pgjdbcsReWriteBatchedInsertsKeepsTheTokenOnEveryRow() throws Throwable {
        // A common production setting: pgjdbc folds a batch of INSERTs into multi-row VALUES statements.
        try (HikariDataSource rewriting =
                Pools.fenced(db, 1, "fenced.tables=totals,orders", "reWriteBatchedInserts=true")) {
            JdbcTemplate t = new JdbcTemplate(rewriting);
            t.setExceptionTranslator(new FencedExceptionTranslator());
            db.execute("TRUNCATE orders");
            List<Object[]> rows = new java.util.ArrayList<>();
            for (int i = 0; i < 37; i++) {
                rows.add(new Object[] {i % 3 + 1, (long) i});
            }
            as(9, () -> t.batchUpdate("INSERT INTO orders (restaurant_id, amount) VALUES (?, ?)", rows));
            assertEquals(37, db.queryLong("SELECT count(*) FROM orders WHERE last_token = 9"));
            String upsert = "INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)"
                    + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount";
            as(
                    9,
                    () -> t.batchUpdate(
                            upsert, List.of(new Object[] {1, 11L}, new Object[] {2, 22L}, new Object[] {8, 88L})));
            assertEquals("1:11:9,2:22:9,3:30:9,8:88:9", Rows.totals(db));
            refusedAsStale(8, () -> t.batchUpdate(upsert, List.of(new Object[] {4, 44L}, new Object[] {3, 33L})));
        }
    }

    @Test
    void namedBatchUpdateUpsertsWithTheToken() throws Throwable {
        SqlParameterSource[] rows = {
            new MapSqlParameterSource("id", 1).addValue("amount", 1001L),
            new MapSqlParameterSource("id", 7).addValue("amount", 7007L)
        };
        as(
                10,
                () -> named.batchUpdate(
                        "INSERT INTO totals (restaurant_id, amount) VALUES (:id, :amount)"
                                + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount",
                        rows));
        assertEquals("1:1001:10,2:20:5,3:30:9,7:7007:10", Rows.totals(db));
    }

    @Test
    void simpleJdbcInsertReturnsGeneratedKeys() throws Throwable {
        db.execute("TRUNCATE orders RESTART IDENTITY");
        SimpleJdbcInsert insert = new SimpleJdbcInsert(jdbc)
                .withTableName("orders")
                .usingColumns("restaurant_id", "amount")
                .usingGeneratedKeyColumns("id");
        Number[] keys = new Number[2];
        as(21, () -> {
            keys[0] = insert.executeAndReturnKey(Map.of("restaurant_id", 1, "amount", 5L));
            keys[1] = insert.executeAndReturnKey(Map.of("restaurant_id", 2, "amount", 6L));
        });
        assertNotNull(keys[0]);
        assertEquals(keys[0].longValue() + 1, keys[1].longValue());
        assertEquals(
                keys[0] + ":1:5:21," + keys[1] + ":2:6:21",
                Rows.snapshot(db, "SELECT id, restaurant_id, amount, last_token FROM orders ORDER BY id"));
    }

    @Test
    void simpleJdbcInsertWithoutColumnsWouldSetTheFenceColumnAndIsRefused() {
        // Without usingColumns, SimpleJdbcInsert inserts every column the metadata lists, last_token included
        // (NULL when the map lacks it): that is the writer choosing the token, so fenced refuses it.
        long before = db.queryLong("SELECT count(*) FROM orders");
        SimpleJdbcInsert all =
                new SimpleJdbcInsert(jdbc).withTableName("orders").usingGeneratedKeyColumns("id");
        InvalidDataAccessApiUsageException e = assertThrows(
                InvalidDataAccessApiUsageException.class,
                () -> as(21, () -> all.executeAndReturnKey(Map.of("restaurant_id", 1, "amount", 5L))));
        UnsupportedStatementException refused = assertInstanceOf(UnsupportedStatementException.class, e.getCause());
        assertTrue(refused.getMessage().contains("sets the fence column last_token itself"), refused.getMessage());
        assertEquals(before, db.queryLong("SELECT count(*) FROM orders"));
    }

    @Test
    void aTransactionThatMeetsAStaleRowRollsBackWhole() {
        // Token 8 may write rows 1 and 2 (token 5), not row 3 (token 9): the third write fails, the first two go.
        OptimisticLockingFailureException e = assertThrows(
                OptimisticLockingFailureException.class,
                () -> as(
                        8,
                        () -> tx.executeWithoutResult(status -> {
                            update(1, 111);
                            upsert(4, 444);
                            update(3, 333);
                        })));
        assertEquals(9, Rows.stale(e).rowToken());
        assertEquals("1:10:5,2:20:5,3:30:9", Rows.totals(db));
    }

    @Test
    void aTransactionOfACurrentHolderCommitsWithItsToken() throws Throwable {
        as(
                9,
                () -> tx.executeWithoutResult(status -> {
                    update(1, 111);
                    update(3, 333);
                    delete(2);
                }));
        assertEquals("1:111:9,3:333:9", Rows.totals(db));
    }

    @Test
    void theStaleTokenExceptionIsTheVeryOneTheDriverThrew() throws Throwable {
        as(12, () -> update(1, 1));
        OptimisticLockingFailureException e =
                assertThrows(OptimisticLockingFailureException.class, () -> as(11, () -> update(1, 2)));
        StaleTokenException stale = (StaleTokenException) e.getCause();
        assertSame(stale, Rows.stale(e));
        assertEquals(11, stale.token());
    }
}
